/** An owner's page: every key of the store, with the forms of `gleaner keys` (create, revoke, set plan). */
import type { AccountRecord, Balance } from '../../accounts/accounts.js';
import { PLAN_NAMES } from '../../accounts/plans.js';
import { isOwner } from '../../accounts/roles.js';
import { amount, html, when, type Html } from './html.js';

export interface KeyRow {
  account: AccountRecord;
  balance: Balance;
}

function planSelect(name: string, selected: string): Html {
  return html`<select name="${name}" aria-label="Plan">${PLAN_NAMES.map((plan) => html`<option value="${plan}"${plan === selected ? html` selected` : ''}>${plan}</option>`)}</select>`;
}

export function keysBody(rows: KeyRow[], me: AccountRecord, csrf: string, notice?: { created?: { account: AccountRecord; apiKey: string }; message?: string; error?: string }): Html {
  const created = notice?.created;
  return html`${
    created
      ? html`<section class="success" id="new-key"><p>Created key <code>${created.account.id}</code> (${created.account.plan} plan${created.account.name ? html`, “${created.account.name}”` : ''}). Copy it now: it is shown this once.</p><p class="secret" id="new-key-value">${created.apiKey}</p></section>`
      : ''
  }${notice?.message ? html`<p class="success">${notice.message}</p>` : ''}${notice?.error ? html`<p class="error" role="alert">${notice.error}</p>` : ''}
<h2>Create a key</h2>
<form class="stack" method="post" action="/console/keys">
<input type="hidden" name="csrf" value="${csrf}">
<label>Name (a label for people) <input name="name" maxlength="100"></label>
<label>Plan ${planSelect('plan', 'Free')}</label>
<label>Monthly credits (empty: the plan's) <input name="credits" inputmode="numeric" pattern="[0-9]*"></label>
<label><span><input type="checkbox" name="owner" value="yes"> Owner: may manage keys and plans here</span></label>
<button type="submit">Create key</button>
</form>
<h2>All keys</h2>
<table id="keys"><tr><th>Id</th><th>Key</th><th>Name</th><th>Plan</th><th class="num">Used / allowance</th><th>Created</th><th>Status</th><th></th></tr>${rows.map(({ account, balance }) => {
    const revoked = Boolean(account.revokedAt);
    return html`<tr data-key-id="${account.id}"><td class="mono">${account.id}</td><td class="mono">${account.keyPrefix}…</td><td>${account.name || '—'}${isOwner(account) ? ' (owner)' : ''}${account.id === me.id ? ' (you)' : ''}</td>
<td>${
      revoked
        ? account.plan
        : html`<form class="inline" method="post" action="/console/keys/${account.id}/plan"><input type="hidden" name="csrf" value="${csrf}">${planSelect('plan', account.plan)} <button type="submit">Set plan</button></form>`
    }</td>
<td class="num">${amount(balance.used)} / ${amount(balance.allowance)}</td><td>${when(account.createdAt)}</td><td>${revoked ? `revoked ${when(account.revokedAt)}` : 'active'}</td>
<td>${
      revoked
        ? ''
        : html`<form class="inline" method="post" action="/console/keys/${account.id}/revoke"><input type="hidden" name="csrf" value="${csrf}"><button class="danger" type="submit">Revoke</button></form>`
    }</td></tr>`;
  })}</table>
<p class="note">The same actions as <code>gleaner keys create|revoke|set-plan</code>. A revoked key stops working at once, its console sessions too.</p>`;
}
