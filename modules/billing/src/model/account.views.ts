/** An account as its own keys see it (docs/design.md §6's account object; GET /account). */
export interface AccountView {
  id: string;
  object: 'account';
  name: string;
  balance: number;
  reserved: number;
  charged: number;
  created_at: string;
}
