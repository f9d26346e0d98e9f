import { Controller, Param, UseGuards } from '@nestjs/common';
import { Endpoint, OperatorGuard } from '@upscaler/http-api';
import { ADMIN_FILE_ENDPOINTS } from './admin-files.routes';
import { AccountFilesService } from './account-files.service';

/** The operator's file deletion (docs/design.md §6, docs/operations.md "Retention"), bearer UPSCALE_OPERATOR_TOKEN. */
@Controller()
@UseGuards(OperatorGuard)
export class AdminFilesController {
  constructor(private readonly files: AccountFilesService) {}

  @Endpoint(ADMIN_FILE_ENDPOINTS.adminDeleteAccountFiles)
  deleteFiles(@Param('id') id: string) {
    return this.files.deleteAll(id);
  }
}
