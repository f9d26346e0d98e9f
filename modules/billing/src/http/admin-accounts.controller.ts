import { Body, Controller, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { OperatorGuard } from '@upscaler/http-api';
import { AccountsService } from './accounts.service';

/** The operator's account endpoints (docs/design.md §6), bearer UPSCALE_OPERATOR_TOKEN. */
@Controller('api/v1/admin/accounts')
@UseGuards(OperatorGuard)
export class AdminAccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  create(@Body() body: unknown) {
    return this.accounts.create(body);
  }

  @Get(':id')
  get(@Param('id') id: string) {
    return this.accounts.forOperator(id);
  }

  @Patch(':id')
  update(@Param('id') id: string, @Body() body: unknown) {
    return this.accounts.update(id, body);
  }

  @Post(':id/credits')
  @HttpCode(200)
  grant(@Param('id') id: string, @Body() body: unknown) {
    return this.accounts.grant(id, body);
  }
}
