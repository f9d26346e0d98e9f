import { DomainError, type AccountView } from '@upscaler/contracts';
import type { LedgerState } from './ledger.state';

/** DESIGN 6, account object: balance = available credits, reserved = held by unfinished jobs, charged = spent. */
export function toAccountView(state: LedgerState): AccountView {
  if (!state.open || state.accountId === null) throw new DomainError('not_found', 'No such account.');
  return {
    id: state.accountId,
    object: 'account',
    name: state.name ?? '',
    balance: state.available,
    reserved: state.reserved,
    charged: state.charged,
    created_at: state.openedAt ?? '',
  };
}
