import { Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { OperatorGuard } from '@upscaler/http-api';
import { AccountFilesService } from './account-files.service';

/** The operator's file deletion (docs/design.md §6, docs/operations.md "Retention"), bearer UPSCALE_OPERATOR_TOKEN. */
@Controller('api/v1/admin')
@UseGuards(OperatorGuard)
export class AdminFilesController {
  constructor(private readonly files: AccountFilesService) {}

  @Post('accounts/:id/delete_files')
  @HttpCode(200)
  deleteFiles(@Param('id') id: string) {
    return this.files.deleteAll(id);
  }
}
