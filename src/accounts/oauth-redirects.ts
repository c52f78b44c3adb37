/**
 * Which redirect URIs a client may register, and whether a requested one is one it registered.
 * Matching is exact (OAuth 2.1 section 2.3.1), with the one exception OAuth 2.1 section 8.4.2 and
 * RFC 8252 section 7.3 make for native apps: an http loopback redirect (127.0.0.1, [::1], localhost)
 * may come back on any port, because the app listens on whatever port was free when it started.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Schemes no redirect may use: they run code or read files in the browser instead of reaching an app. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:', 'ws:', 'wss:']);

export const MAX_REDIRECT_URI_LENGTH = 2_000;

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** Why `uri` cannot be registered as a redirect URI, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `a redirect URI is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (!URL.canParse(uri)) return `"${uri}" is not an absolute URI`;
  const url = new URL(uri);
  if (url.hash || uri.includes('#')) return `"${uri}" has a fragment, which a redirect URI may not have`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `"${url.protocol}" redirect URIs are not allowed`;
  if (url.protocol === 'http:' && !isLoopbackHttp(url)) return `"${uri}" uses http on a host that is not loopback: use https (or http://127.0.0.1 for an app on this computer)`;
  if (url.username || url.password) return `"${uri}" carries credentials`;
  return undefined;
}

/** True when `requested` is exactly one of `registered`, or the same loopback redirect on another port. */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (!URL.canParse(requested)) return false;
  const asked = new URL(requested);
  if (!isLoopbackHttp(asked)) return false;
  return registered.some((uri) => {
    if (!URL.canParse(uri)) return false;
    const known = new URL(uri);
    // Everything but the port must be the same, compared on the strings the client sent.
    return isLoopbackHttp(known) && known.hostname === asked.hostname && known.pathname === asked.pathname && known.search === asked.search && withoutPort(uri) === withoutPort(requested);
  });
}

function withoutPort(uri: string): string {
  return uri.replace(/^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::\d+)?/i, '$1');
}
