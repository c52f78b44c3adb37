/**
 * The one place credentials are taken out of text a person or a caller will see: every log line
 * (src/log.ts), every error message (GleanerError), /healthz and `doctor` go through `redactText`.
 *
 * Two nets: any URL in the text loses its userinfo and the values of query parameters that look
 * secret (a bounded list of names plus a few name patterns), whoever configured it; and the exact
 * secrets of this process's configuration (keys, passwords, tokens, cookie values), remembered at
 * start-up, are replaced wherever they appear, inside a URL or not.
 */

export const REDACTED = '***';

/** Query parameter names whose value is a credential. */
const SECRET_PARAMS = new Set([
  'key', 'apikey', 'api_key', 'api-key', 'token', 'access_token', 'refresh_token', 'id_token', 'auth', 'authorization',
  'sig', 'signature', 'password', 'passwd', 'pass', 'pwd', 'secret', 'client_secret', 'session', 'sessionid', 'sid',
  'credential', 'credentials', 'code', 'pot', 'x-amz-signature', 'x-amz-credential', 'x-amz-security-token', 'x-goog-signature',
]);
/** Names not in the list that still say what they hold (`upload_token`, `my-api-key`, `db_password`, ...). */
const SECRET_PARAM_PATTERN = /token|secret|passw|signature|api[-_]?key|credential|session|^auth(?!or)|(key|sig|pwd)$/i;

export function isSecretParam(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_PARAMS.has(lower) || SECRET_PARAM_PATTERN.test(lower);
}

/** A URL inside free text: a scheme, `://`, and everything up to a space, a quote, a bracket or a backslash (JSON escapes). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s"'<>`\\{}|^]+/gi;
/** The authority's userinfo: what stands before an `@` ahead of the first `/`, `?` or `#`. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i;
const QUERY_PAIR = /([?&;])([^=&;#]+)=([^&;#]*)/g;

/** One URL (or URL-like string) with its userinfo and secret query values replaced. Never throws. */
export function redactUrl(url: string): string {
  let out = url.replace(USERINFO, `$1${REDACTED}@`);
  if (out.includes('=')) {
    out = out.replace(QUERY_PAIR, (whole, sep: string, name: string, value: string) => {
      if (value === '' || value === REDACTED) return whole;
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // A broken escape: judge the name as written.
      }
      return isSecretParam(decoded) ? `${sep}${name}=${REDACTED}` : whole;
    });
  }
  return out;
}

/** Exact secrets of this process's configuration, longest first so one containing another goes whole. */
let known: string[] = [];
/** Shorter values are too likely to be ordinary words to replace everywhere (URL redaction still covers them there). */
const MIN_SECRET_LENGTH = 6;

/** Remembers credentials to take out of every text from now on (and their URL-encoded spellings). */
export function rememberSecrets(values: Iterable<string | undefined>): void {
  const next = new Set(known);
  for (const value of values) {
    if (!value || value.length < MIN_SECRET_LENGTH) continue;
    next.add(value);
    const encoded = encodeURIComponent(value);
    if (encoded !== value) next.add(encoded);
    const json = JSON.stringify(value).slice(1, -1);
    if (json !== value) next.add(json);
  }
  known = [...next].sort((a, b) => b.length - a.length);
}

/** The credentials a configured URL carries: its userinfo (both parts) and its secret query values. */
export function secretsOfUrl(url: string | undefined): string[] {
  if (!url || !URL.canParse(url)) return [];
  const parsed = new URL(url);
  const found = [parsed.username, parsed.password].filter(Boolean).flatMap((part) => {
    try {
      return [part, decodeURIComponent(part)];
    } catch {
      return [part];
    }
  });
  for (const [name, value] of parsed.searchParams) if (value && isSecretParam(name)) found.push(value);
  return found;
}

/** Configuration variables holding a credential outright (GLEANER_STT_API_KEY, GLEANER_WEBHOOK_SECRET, ...). */
const SECRET_VARIABLE = /_(KEY|SECRET|TOKEN|PASSWORD)$/;

/**
 * Remembers every credential of the configuration: variables named as secrets, and the userinfo and
 * secret query values of every URL (or comma list of URLs) a variable holds. Called at start-up.
 */
export function rememberConfiguredSecrets(config: Record<string, unknown>): void {
  const found: string[] = [];
  for (const [name, value] of Object.entries(config)) {
    if (typeof value !== 'string' || !name.startsWith('GLEANER_')) continue;
    if (SECRET_VARIABLE.test(name)) found.push(value);
    if (value.includes('://')) for (const part of value.split(',')) found.push(...secretsOfUrl(part.trim()));
  }
  rememberSecrets(found);
}

/** Text with every URL redacted and every remembered secret replaced. Cheap when there is nothing to do. */
export function redactText(text: string): string {
  let out = text.includes('://') ? text.replace(URL_IN_TEXT, redactUrl) : text;
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}
