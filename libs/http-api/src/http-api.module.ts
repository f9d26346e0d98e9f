import { Global, Module } from '@nestjs/common';
import { RateLimiter } from './rate-limit/rate-limiter';
import { AddressRateLimitGuard, UnkeyedErrorRateLimit } from './rate-limit/unkeyed-rate-limit';
import { LogTail } from './read-cache/log-tail';

/**
 * One rate limiter and one log tail per process, shared by every module's endpoints (a key's window is the same
 * whichever module answers it). Global, so each capability module's guard and caches inject them.
 */
@Global()
@Module({
  providers: [RateLimiter, LogTail, AddressRateLimitGuard, UnkeyedErrorRateLimit],
  exports: [RateLimiter, LogTail, AddressRateLimitGuard, UnkeyedErrorRateLimit],
})
export class HttpApiModule {}
