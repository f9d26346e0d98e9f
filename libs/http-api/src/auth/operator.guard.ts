import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Request } from 'express';
import { DomainError } from '@upscaler/contracts';
import { CONFIG } from '@upscaler/runtime';
import type { AppConfig } from '@upscaler/config';

/** Operator API (docs/design.md §6): bearer UPSCALE_OPERATOR_TOKEN, compared in constant time. */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(@Inject(CONFIG) private readonly config: AppConfig) {}

  canActivate(ctx: ExecutionContext): boolean {
    const expected = this.config.operatorToken;
    const header = ctx.switchToHttp().getRequest<Request>().headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!expected || !match) throw new DomainError('unauthorized', 'Missing or invalid operator token.');
    const a = createHash('sha256').update(match[1]).digest();
    const b = createHash('sha256').update(expected).digest();
    if (!timingSafeEqual(a, b)) throw new DomainError('unauthorized', 'Missing or invalid operator token.');
    return true;
  }
}
