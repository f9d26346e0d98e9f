import { Controller, UseGuards } from '@nestjs/common';
import { AddressRateLimitGuard, Endpoint } from '@upscaler/http-api';
import { openApiDocument } from './openapi.document';
import { META_ENDPOINTS } from './openapi.routes';

/** The OpenAPI 3.1 document of the whole API, additions included. Takes no key: counts against the address's window. */
@Controller()
@UseGuards(AddressRateLimitGuard)
export class OpenApiController {
  @Endpoint(META_ENDPOINTS.openApiDocument)
  get() {
    return openApiDocument();
  }
}
