import { SetMetadata } from '@nestjs/common';
import type { Scope } from '@upscaler/contracts';

export const SCOPES_KEY = 'upscaler:scopes';
/** The scope a route needs (spec 5, rule 4). `RequireScope()` with none: any valid key. */
export const RequireScope = (...scopes: Scope[]) => SetMetadata(SCOPES_KEY, scopes);
