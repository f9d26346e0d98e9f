import { streams } from '@upscaler/contracts';
import { commandHandlerFor } from '@upscaler/runtime';
import { accountDecider } from './model/account.decider';
import { reservationDecider } from './model/reservation.decider';

/** Runs account commands on `account-…` streams (libs/runtime/src/command-handler.ts). */
export class AccountCommandHandler extends commandHandlerFor(accountDecider, streams.account) {}

/** Runs a job's credit commands on its `reservation-…` stream, by job id. */
export class ReservationCommandHandler extends commandHandlerFor(reservationDecider, streams.reservation) {}
