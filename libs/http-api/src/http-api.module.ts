import { Module } from '@nestjs/common';
import { RateLimiter } from './rate-limit/rate-limiter';
import { AddressRateLimitGuard, UnkeyedErrorRateLimit } from './rate-limit/unkeyed-rate-limit';
import { LogTail } from './read-cache/log-tail';

/**
 * One rate limiter and one log tail per process, shared by every module's endpoints (a key's window is the same
 * whichever module answers it). Each capability module that serves HTTP imports it; Nest makes a module once per
 * application, so they all inject the same instances.
 */
@Module({
  providers: [RateLimiter, LogTail, AddressRateLimitGuard, UnkeyedErrorRateLimit],
  exports: [RateLimiter, LogTail, AddressRateLimitGuard, UnkeyedErrorRateLimit],
})
export class HttpApiModule {}
