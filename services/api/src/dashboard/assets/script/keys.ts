/** Browser code: the API keys panel (GET/POST/DELETE /api_keys, scopes keys:read / keys:write). */
export const KEYS_JS = String.raw`
/** The key this page uses is recognised by its prefix (its first 12 characters, docs/design.md §6). */
function isThisKey(k) {
  return storedKey().slice(0, 12) === k.prefix;
}

function keyRow(k) {
  const revoked = Boolean(k.revoked_at);
  const label = k.name || k.prefix;
  const status = el('td', {}, [revoked ? badge('revoked', 'bad') : badge('active', 'ok')]);
  if (revoked) status.append(el('div', { class: 'hint' }, ['since ', timeElement(k.revoked_at)]));
  const actions = el('td', { class: 'actions' });
  if (!revoked) {
    actions.append(button('Revoke', 'danger small', function (b) {
      revokeKey(k, b);
    }, { 'aria-label': 'Revoke key ' + label }));
  }
  return el('tr', { 'data-key-id': k.id, class: revoked ? 'revoked' : '' }, [
    el('td', { class: 'name' }, [k.name ? k.name : el('span', { class: 'subtle', text: '(no name)' })]),
    el('td', {}, [el('code', { text: k.prefix }), isThisKey(k) ? el('div', { class: 'hint', text: 'this dashboard' }) : null]),
    el('td', {}, [el('span', { class: 'scopes' }, (k.scopes || []).map(function (s) { return badge(s); }))]),
    el('td', { class: 'num', text: k.rate_limit_per_minute ? formatCount(k.rate_limit_per_minute) + ' / min' : 'default' }),
    timeCell(k.created_at),
    status,
    actions,
  ]);
}

async function loadKeys() {
  const panel = $('keys-panel');
  try {
    const list = await api('GET', '/api_keys');
    renderRows(panel, list.data.map(keyRow));
    showError(panel, null);
  } catch (err) {
    renderRows(panel, null);
    showError(panel, err);
  }
}

async function createKey(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const body = { scopes: checkedValues(form, 'key-scope') };
  const name = form.elements.name.value.trim();
  const rate = form.elements.rate_limit_per_minute.value.trim();
  if (name) body.name = name;
  if (rate) body.rate_limit_per_minute = Number(rate);
  await busy(form.querySelector('button[type="submit"]'), async function () {
    try {
      const created = await api('POST', '/api_keys', body);
      showError(form, null);
      form.reset();
      reveal('new-key', created.key);
      await loadKeys();
    } catch (err) {
      showError(form, err);
    }
  });
}

async function revokeKey(k, b) {
  const own = isThisKey(k);
  const question = 'Revoke the key ' + (k.name ? '"' + k.name + '" ' : '') + '(' + k.prefix + ')? Anything using it gets 401 from now on.' +
    (own ? ' This is the key this dashboard is using: you will be signed out.' : '');
  if (!window.confirm(question)) return;
  await busy(b, async function () {
    try {
      await api('DELETE', '/api_keys/' + encodeURIComponent(k.id));
      if (own) {
        signOut({ code: 'unauthorized', status: 0, message: 'The key this dashboard was using has been revoked. Paste another key.' });
        return;
      }
      await loadKeys();
    } catch (err) {
      showError($('keys-panel'), err);
    }
  });
}
`;
