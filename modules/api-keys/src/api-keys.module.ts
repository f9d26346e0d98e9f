import { Module } from '@nestjs/common';
import { HttpApiModule } from '@upscaler/http-api';
import { ApiKeyCache } from './auth/api-key-cache';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeysController } from './http/api-keys.controller';
import { ApiKeysService } from './http/api-keys.service';

/**
 * The /api_keys endpoints, and the guard every keyed endpoint of every module uses (spec 5: bearer key, per-key rate
 * limit, scope). Exports the guard and its cache for the other modules' controllers, and the service for the
 * operator's endpoints that create keys for an account.
 */
@Module({
  imports: [HttpApiModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, ApiKeyCache, ApiKeyGuard],
  exports: [ApiKeysService, ApiKeyCache, ApiKeyGuard],
})
export class ApiKeysModule {}
