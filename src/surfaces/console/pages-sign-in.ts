/** The sign-in form: a person pastes a key. The form carries a token bound to a cookie of its own. */
import { html, type Html } from './html.js';

export function signInBody(formToken: string, error?: string, notice?: string): Html {
  return html`${error ? html`<p class="error" role="alert" id="sign-in-error">${error}</p>` : ''}${notice ? html`<p class="success">${notice}</p>` : ''}
<form class="stack" method="post" action="/console/sign-in">
<input type="hidden" name="csrf" value="${formToken}">
<label>API key <input name="key" type="password" autocomplete="current-password" required maxlength="200" placeholder="gl_…"></label>
<button type="submit">Sign in</button>
</form>
<p class="note">Sign in with a Gleaner API key (it starts with <code>gl_</code>). The key is checked and never stored in the browser: a session cookie is, for up to 12 hours or until you sign out.</p>`;
}
