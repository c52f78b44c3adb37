/** The OAuth clients approved for the signed-in key (shown only when the server has a source: oauth-slot.ts). */
import { html, when, type Html } from './html.js';
import type { ApprovedClient } from './oauth-slot.js';

export function oauthClientsBody(clients: ApprovedClient[], csrf: string, notice?: string): Html {
  const done = notice ? html`<p class="success">${notice}</p>` : '';
  if (clients.length === 0) return html`${done}<p class="note">No OAuth client (Claude, ChatGPT, an MCP client) has been approved for this key.</p>`;
  // "Last renewed", not "last used": the record changes when the client refreshes its tokens, not on each call.
  return html`${done}<table id="oauth-clients"><tr><th>Client</th><th>Approved</th><th>Last renewed</th><th></th></tr>${clients.map(
    (client) =>
      html`<tr><td>${client.name} <span class="mono note">${client.clientId}</span></td><td>${when(client.approvedAt)}</td><td>${when(client.lastUsedAt) || '—'}</td><td><form class="inline" method="post" action="/console/oauth-clients/${encodeURIComponent(client.grantId)}/revoke"><input type="hidden" name="csrf" value="${csrf}"><button class="danger" type="submit">Revoke</button></form></td></tr>`,
  )}</table>
<p class="note">Revoking a client ends its tokens at once; it must ask for approval again.</p>`;
}
