import { Controller, Get } from '@nestjs/common';
import { openApiDocument } from './openapi.document';

/** The OpenAPI 3.1 document of the whole API, additions included. */
@Controller('api/v1')
export class OpenApiController {
  @Get('openapi.json')
  get() {
    return openApiDocument();
  }
}
