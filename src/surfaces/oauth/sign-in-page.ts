/**
 * The sign-in page of Gleaner's OAuth: a person pastes a Gleaner key and approves (or denies) the
 * application by name. Rendered on the server, one plain form, no script, nothing from another origin:
 * it works without JavaScript and under a Content-Security-Policy that allows only its own inline style
 * (by nonce) and form posts to itself and to the application's redirect (where the approval goes).
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f5f5f4;color:#1c1917;margin:0}
main{max-width:28rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #e7e5e4;border-radius:.75rem}
h1{font-size:1.35rem;margin:0 0 1rem}
p{margin:.5rem 0}
.app{font-weight:600}
.where{font-family:ui-monospace,monospace;font-size:.9rem;word-break:break-all;color:#44403c}
label{display:block;margin:1.25rem 0 .35rem;font-weight:600}
input[type=password]{box-sizing:border-box;width:100%;padding:.6rem;font:inherit;border:1px solid #a8a29e;border-radius:.4rem}
.buttons{display:flex;gap:.75rem;margin-top:1.25rem}
button{font:inherit;padding:.55rem 1.1rem;border-radius:.4rem;border:1px solid #1c1917;cursor:pointer}
button.approve{background:#1c1917;color:#fff}
button.deny{background:#fff;color:#1c1917}
.error{background:#fef2f2;border:1px solid #fecaca;color:#991b1b;padding:.6rem .8rem;border-radius:.4rem}
.small{font-size:.875rem;color:#57534e}
`;

interface PageOptions {
  status: number;
  title: string;
  body: string;
  /** Where the form may post: 'self' plus the application's redirect origin (the approval's 303 goes there). */
  formTargets?: string[];
}

function sendPage(res: ServerResponse, options: PageOptions): void {
  const nonce = randomBytes(16).toString('base64');
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(options.title)} · Gleaner</title>
<style nonce="${nonce}">${STYLE}</style></head>
<body><main>${options.body}</main></body></html>`;
  res.statusCode = options.status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // same-origin, not no-referrer: with no-referrer a browser posts the form with "Origin: null", which the CSRF check refuses.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(html));
  res.end(html);
}

export interface SignInView {
  requestId: string;
  csrf: string;
  clientName: string;
  clientId: string;
  redirectUri: string;
  /** Why the last attempt failed (a key not accepted). */
  error?: string;
  /** The CSP source the redirect needs (its origin, or its scheme for an app's own scheme). */
  redirectSource: string;
}

export function sendSignInPage(res: ServerResponse, view: SignInView, status = 200): void {
  const where = new URL(view.redirectUri);
  const destination = where.protocol === 'https:' || where.protocol === 'http:' ? where.host : `${where.protocol}//`;
  const documentNote = view.clientId.startsWith('https://') ? `<p class="small">Published by <span class="where">${escapeHtml(new URL(view.clientId).host)}</span>.</p>` : '';
  sendPage(res, {
    status,
    title: 'Sign in',
    formTargets: [view.redirectSource],
    body: `<h1>Sign in to Gleaner</h1>
<p><span class="app">${escapeHtml(view.clientName)}</span> asks to use Gleaner's tools with your key: its calls use your plan, credits and rate limit.</p>
${documentNote}<p class="small">After you approve, you are sent back to <span class="where">${escapeHtml(destination)}</span>. Approve only if you started this from that application.</p>
${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ''}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="request_id" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="api_key">Your Gleaner API key</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" spellcheck="false" placeholder="gl_…">
<div class="buttons"><button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="deny" type="submit" name="decision" value="deny">Deny</button></div>
</form>
<p class="small">The key stays on this server; the application receives a token that acts as the key until you revoke it (in the console, or by revoking the key).</p>`,
  });
}

/** A refusal shown to the person (never sent to the application: its redirect could not be trusted, or the form was forged). */
export function sendProblemPage(res: ServerResponse, status: number, title: string, message: string): void {
  sendPage(res, { status, title, body: `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p><p class="small">Start again from the application you were connecting.</p>` });
}
