/** Browser code: the account panel (GET /account, any valid key; docs/design.md §6). */
export const ACCOUNT_JS = String.raw`
function renderAccount(a) {
  $('account-name').textContent = a.name;
  $('account-id').textContent = a.id;
  $('account-balance').textContent = formatCount(a.balance);
  $('account-reserved').textContent = formatCount(a.reserved);
  $('account-charged').textContent = formatCount(a.charged);
}

async function loadAccount() {
  const panel = $('account-panel');
  try {
    renderAccount(await api('GET', '/account'));
    showError(panel, null);
  } catch (err) {
    showError(panel, err);
  }
}
`;
