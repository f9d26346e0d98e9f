import type { Provider } from '@nestjs/common';
import { DATABASE } from '@upscaler/runtime';
import type { DataSource } from 'typeorm';
import { BalanceRepository } from './balance.repository';

/** The balances repository on the runtime's database, for whichever of this module's Nest modules a service runs. */
export const balanceRepositoryProvider: Provider = {
  provide: BalanceRepository,
  useFactory: (db: DataSource) => new BalanceRepository(db),
  inject: [DATABASE],
};
