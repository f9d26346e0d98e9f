import { Module } from '@nestjs/common';
import { ReservationSweeper } from './reservation.sweeper';
import { ReserveResponder } from './reserve.responder';
import { SettlementConsumer } from './settlement.consumer';

/** The credit ledger service (DESIGN 1): reserve on submit, charge on success, refund otherwise. */
@Module({ providers: [ReserveResponder, SettlementConsumer, ReservationSweeper] })
export class BillingModule {}
