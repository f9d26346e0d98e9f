/** A due delivery as the scheduler sees it: whose it is and where it goes. */
export interface DueDelivery {
  streamId: string;
  endpointId: string;
  accountId: string;
}

/** How many attempts one webhooks process runs at once: in all, per endpoint, per account. */
export interface DeliveryShares {
  total: number;
  perEndpoint: number;
  perAccount: number;
}

export interface DeliveryPick {
  /** Due deliveries to attempt now, in the order given. */
  start: DueDelivery[];
  /** Endpoints, and accounts, whose share is all under way while more of their deliveries are due. */
  full: { endpoints: number; accounts: number };
}

/**
 * Which due deliveries start now (docs/operations.md "Webhook delivery scheduling"). Pure: the worker passes the
 * attempts it has under way and the due deliveries in turns (ReadModelRepository.dueInTurns); an endpoint never
 * runs more than `perEndpoint` attempts at once, an account never more than `perAccount`, and the process never
 * more than `total`, so a receiver that hangs until the timeout ties up only its own share.
 */
export function pickDeliveries(due: readonly DueDelivery[], underWay: Iterable<DueDelivery>, shares: DeliveryShares): DeliveryPick {
  const byEndpoint = new Map<string, number>();
  const byAccount = new Map<string, number>();
  const running = new Set<string>();
  const count = (d: DueDelivery): void => {
    byEndpoint.set(d.endpointId, (byEndpoint.get(d.endpointId) ?? 0) + 1);
    byAccount.set(d.accountId, (byAccount.get(d.accountId) ?? 0) + 1);
  };
  for (const d of underWay) {
    running.add(d.streamId);
    count(d);
  }
  let room = shares.total - running.size;
  const start: DueDelivery[] = [];
  const fullEndpoints = new Set<string>();
  const fullAccounts = new Set<string>();
  for (const d of due) {
    if (running.has(d.streamId)) continue;
    if ((byEndpoint.get(d.endpointId) ?? 0) >= shares.perEndpoint) fullEndpoints.add(d.endpointId);
    else if ((byAccount.get(d.accountId) ?? 0) >= shares.perAccount) fullAccounts.add(d.accountId);
    else if (room > 0) {
      start.push(d);
      running.add(d.streamId);
      count(d);
      room--;
    }
  }
  return { start, full: { endpoints: fullEndpoints.size, accounts: fullAccounts.size } };
}
