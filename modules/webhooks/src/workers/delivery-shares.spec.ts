import { pickDeliveries, type DueDelivery } from './delivery-shares';

const shares = { total: 6, perEndpoint: 2, perAccount: 3 };
const d = (n: number, endpointId: string, accountId: string): DueDelivery => ({ streamId: `delivery-${n}`, endpointId, accountId });
const ids = (list: DueDelivery[]) => list.map((x) => x.streamId);

describe('which due webhook deliveries start (per endpoint, per account and in all)', () => {
  it('an endpoint with a backlog starts only its share; the next account still starts', () => {
    const due = [d(1, 'we_a', 'acct_a'), d(2, 'we_a', 'acct_a'), d(3, 'we_a', 'acct_a'), d(4, 'we_b', 'acct_b')];
    expect(pickDeliveries(due, [], shares)).toEqual({ start: [due[0], due[1], due[3]], full: { endpoints: 1, accounts: 0 } });
  });

  it('counts the attempts under way against their endpoint and account, and never starts one twice', () => {
    const underWay = [d(1, 'we_a', 'acct_a'), d(2, 'we_a2', 'acct_a')];
    const due = [d(1, 'we_a', 'acct_a'), d(3, 'we_a', 'acct_a'), d(4, 'we_a', 'acct_a'), d(5, 'we_a3', 'acct_a'), d(6, 'we_a2', 'acct_a')];
    // we_a: 1 under way + 3 → its 2nd; acct_a: 2 under way + 1 = 3 → we_a3 and we_a2 wait for the account's share
    expect(pickDeliveries(due, underWay, shares)).toEqual({ start: [due[1]], full: { endpoints: 1, accounts: 1 } });
  });

  it('stops at the process total, leaving the rest due (no share is full: they start at the next free slot)', () => {
    const due = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => d(n, `we_${n}`, `acct_${n}`));
    const pick = pickDeliveries(due, [d(0, 'we_0', 'acct_0')], shares);
    expect([ids(pick.start), pick.full]).toEqual([
      ['delivery-1', 'delivery-2', 'delivery-3', 'delivery-4', 'delivery-5'],
      { endpoints: 0, accounts: 0 },
    ]);
  });

  it('starts nothing when every slot is taken', () => {
    const underWay = [1, 2, 3, 4, 5, 6].map((n) => d(n, `we_${n}`, `acct_${n}`));
    expect(pickDeliveries([d(9, 'we_9', 'acct_9')], underWay, shares)).toEqual({ start: [], full: { endpoints: 0, accounts: 0 } });
  });
});
