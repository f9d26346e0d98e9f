import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { OperatorGuard } from '../auth/operator.guard';
import { ApiKeysService } from '@upscaler/api-keys';
import { AccountsService } from './accounts.service';
import { AccountFilesService } from './account-files.service';

/** Operator API (docs/design.md §6), bearer UPSCALE_OPERATOR_TOKEN. */
@Controller('api/v1/admin')
@UseGuards(OperatorGuard)
export class AdminController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly keys: ApiKeysService,
    private readonly files: AccountFilesService,
  ) {}

  @Post('accounts')
  createAccount(@Body() body: unknown) {
    return this.accounts.create(body);
  }

  @Get('accounts/:id')
  getAccount(@Param('id') id: string) {
    return this.accounts.forOperator(id);
  }

  @Patch('accounts/:id')
  updateAccount(@Param('id') id: string, @Body() body: unknown) {
    return this.accounts.update(id, body);
  }

  @Post('accounts/:id/credits')
  @HttpCode(200)
  grant(@Param('id') id: string, @Body() body: unknown) {
    return this.accounts.grant(id, body);
  }

  @Post('accounts/:id/delete_files')
  @HttpCode(200)
  deleteFiles(@Param('id') id: string) {
    return this.files.deleteAll(id);
  }

  @Post('accounts/:id/keys')
  async createKey(@Param('id') id: string, @Body() body: unknown) {
    await this.accounts.load(id);
    return this.keys.create(id, body);
  }

  @Delete('keys/:id')
  @HttpCode(200)
  revokeKey(@Param('id') id: string) {
    return this.keys.revoke(id, undefined);
  }
}
