import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Scope } from '@upscaler/contracts';

/** Who is calling: set by ApiKeyGuard on the request. */
export interface Principal {
  accountId: string;
  keyId: string;
  scopes: Scope[];
}

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const req = ctx.switchToHttp().getRequest<{ principal?: Principal }>();
  if (!req.principal) throw new Error('CurrentPrincipal used on a route without ApiKeyGuard');
  return req.principal;
});
