/**
 * GLEANER_COOKIES_FILE: a Netscape cookies.txt (what browser extensions and yt-dlp export), parsed
 * once, whose cookies are sent to the platform domains they belong to. Cookies are credentials:
 * nothing here logs them or puts them in an error message.
 */
import fs from 'node:fs';

export interface Cookie {
  /** Lower-case, without the leading dot. */
  domain: string;
  /** TRUE in the file: the cookie also goes to subdomains. */
  includeSubdomains: boolean;
  path: string;
  secure: boolean;
  /** Unix seconds; 0 for a session cookie (kept for the life of the process). */
  expires: number;
  name: string;
  value: string;
}

/**
 * Parses the Netscape format: one cookie per line, seven tab-separated fields (domain,
 * include-subdomains flag, path, secure flag, expiry, name, value). `#` lines are comments except
 * the `#HttpOnly_` prefix curl and browsers write before a domain. Malformed lines are skipped.
 */
export function parseNetscapeCookies(text: string): Cookie[] {
  const cookies: Cookie[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw;
    if (line.startsWith('#HttpOnly_')) line = line.slice('#HttpOnly_'.length);
    else if (line.startsWith('#') || line.trim() === '') continue;
    const fields = line.split('\t');
    if (fields.length < 7) continue;
    const [domain, flag, path, secure, expires, name, ...rest] = fields;
    const value = rest.join('\t');
    if (!domain || !name) continue;
    cookies.push({
      domain: domain.trim().toLowerCase().replace(/^\./, ''),
      // A leading dot means subdomains too, whatever the flag says.
      includeSubdomains: flag.trim().toUpperCase() === 'TRUE' || domain.trim().startsWith('.'),
      path: path || '/',
      secure: secure.trim().toUpperCase() === 'TRUE',
      expires: Number(expires) || 0,
      name: name.trim(),
      value: value.trim(),
    });
  }
  return cookies;
}

/** Domains cookies may be sent to (and their subdomains): the platforms that gate content behind a login or consent. */
export const COOKIE_DOMAINS = ['youtube.com', 'google.com', 'instagram.com', 'facebook.com', 'x.com', 'twitter.com'];

const within = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

export class CookieJar {
  private readonly cookies: Cookie[];

  constructor(cookies: Cookie[], private readonly now: () => number = () => Date.now()) {
    // Only the platforms' cookies are kept: a browser export holds every site's, which no request of ours should carry.
    this.cookies = cookies.filter((c) => COOKIE_DOMAINS.some((d) => within(c.domain, d)));
  }

  static fromFile(file: string): CookieJar {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(`GLEANER_COOKIES_FILE could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${file}`);
    }
    return new CookieJar(parseNetscapeCookies(text));
  }

  get size(): number {
    return this.cookies.length;
  }

  private matching(url: URL): Cookie[] {
    const host = url.hostname.toLowerCase();
    const seconds = this.now() / 1000;
    return this.cookies.filter(
      (c) =>
        (c.includeSubdomains ? within(host, c.domain) : host === c.domain) &&
        (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/') &&
        (!c.secure || url.protocol === 'https:') &&
        (c.expires === 0 || c.expires > seconds),
    );
  }

  /** The Cookie header for a request to `url`, or undefined when no cookie matches. */
  headerFor(url: URL): string | undefined {
    // Longer paths first, as browsers order them.
    const found = this.matching(url).sort((a, b) => b.path.length - a.path.length);
    return found.length > 0 ? found.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  /** One cookie's value for a URL (e.g. X's ct0, which must also travel as a header). */
  value(url: URL | string, name: string): string | undefined {
    return this.matching(typeof url === 'string' ? new URL(url) : url).find((c) => c.name === name)?.value;
  }
}
