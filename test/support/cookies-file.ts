/** An operator's cookies file (GLEANER_COOKIES_FILE) in the Netscape format, as browser extensions write it. */
import fs from 'node:fs';
import path from 'node:path';

export interface TestCookie {
  /** The domain the cookie belongs to, subdomains included (e.g. `x.com`). */
  domain: string;
  name: string;
  value: string;
  /** Written with the `#HttpOnly_` prefix browser exports use. */
  httpOnly?: boolean;
  /** Sent over https only (default true). */
  secure?: boolean;
}

/** Writes `cookies.txt` into `dir` and returns its path. */
export function writeCookiesFile(dir: string, cookies: TestCookie[]): string {
  const file = path.join(dir, 'cookies.txt');
  const line = (c: TestCookie) => `${c.httpOnly ? '#HttpOnly_' : ''}.${c.domain}\tTRUE\t/\t${c.secure === false ? 'FALSE' : 'TRUE'}\t0\t${c.name}\t${c.value}`;
  fs.writeFileSync(file, ['# Netscape HTTP Cookie File', ...cookies.map(line), ''].join('\n'));
  return file;
}
