import { Module } from '@nestjs/common';
import { ReservationSweeper } from './reservation.sweeper';
import { ReserveResponder } from './reserve.responder';

/**
 * The credit service (DESIGN 1): accounts' reservations and their expiry. Charges and refunds are the
 * jobs' own final events, applied to the balances in the same transaction (settled on final).
 */
@Module({ providers: [ReserveResponder, ReservationSweeper] })
export class BillingModule {}
