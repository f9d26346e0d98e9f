import { Controller, Get, UseGuards } from '@nestjs/common';
import { AddressRateLimitGuard } from '@upscaler/http-api';
import { openApiDocument } from './openapi.document';

/** The OpenAPI 3.1 document of the whole API, additions included. Takes no key: counts against the address's window. */
@Controller('api/v1')
@UseGuards(AddressRateLimitGuard)
export class OpenApiController {
  @Get('openapi.json')
  get() {
    return openApiDocument();
  }
}
