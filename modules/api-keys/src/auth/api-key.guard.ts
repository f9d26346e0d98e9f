import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { DomainError, type Scope } from '@upscaler/contracts';
import { CONFIG } from '@upscaler/runtime';
import { bearerApiKey, hashApiKey } from './api-key-secret';
import type { Principal } from './principal';
import { SCOPES_KEY, RateLimiter } from '@upscaler/http-api';
import type { AppConfig } from '@upscaler/config';
import { ApiKeyCache } from './api-key-cache';

/**
 * Spec 5: bearer `usk_` key; missing, malformed, unknown or revoked -> 401 unauthorized. Then the
 * per-key rate limit (spec 8; headers on every response), then the route's scope -> 403 forbidden.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(CONFIG) private readonly config: AppConfig,
    private readonly keys: ApiKeyCache,
    private readonly reflector: Reflector,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request & { principal?: Principal }>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const secret = bearerApiKey(req.headers.authorization);
    if (!secret) throw new DomainError('unauthorized');
    const key = await this.keys.active(hashApiKey(secret));
    if (!key) throw new DomainError('unauthorized');

    await this.rateLimiter.hit(key.keyId, key.rateLimitPerMinute ?? this.config.rateLimitPerMinute, res);

    const required = this.reflector.getAllAndOverride<Scope[] | undefined>(SCOPES_KEY, [ctx.getHandler(), ctx.getClass()]) ?? [];
    if (!required.every((s) => key.scopes.includes(s))) {
      throw new DomainError('forbidden', `This API key lacks the ${required.join(', ')} scope.`);
    }
    req.principal = { accountId: key.accountId, keyId: key.keyId, scopes: key.scopes };
    return true;
  }
}
