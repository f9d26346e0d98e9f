import { Module } from '@nestjs/common';
import { HttpApiModule } from '@upscaler/http-api';
import { ApiKeyCache } from './auth/api-key-cache';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AdminKeysController } from './http/admin-keys.controller';
import { ApiKeysController } from './http/api-keys.controller';
import { ApiKeysService } from './http/api-keys.service';
import { ApiKeyCommandHandler } from './api-key.command-handler';
import { apiKeySettingsProvider } from './api-keys.config';

/**
 * The /api_keys endpoints and the operator's key endpoints, and the guard every keyed endpoint of every module uses
 * (spec 5: bearer key, per-key rate limit, scope). Exports the guard and its cache for the other modules' controllers.
 * The operator's key endpoint needs ACCOUNT_LOOKUP (http/account-lookup.port.ts), which billing provides.
 */
@Module({
  imports: [HttpApiModule],
  controllers: [ApiKeysController, AdminKeysController],
  providers: [ApiKeysService, ApiKeyCommandHandler, ApiKeyCache, ApiKeyGuard, apiKeySettingsProvider],
  exports: [ApiKeyCache, ApiKeyGuard],
})
export class ApiKeysModule {}
