/**
 * Which URLs a scoped crawl or map may take: path patterns (include / exclude) and hosts (the
 * start site, its subdomains, or any host).
 *
 * Patterns are globs, not regular expressions, so a caller cannot send a pattern that backtracks
 * for minutes: a glob is matched by stepping a set of positions through the path once (time bounded
 * by path length × pattern length). Syntax, matched against the whole URL path (no query):
 *   `*`  any characters except `/`       `**` any characters, `/` included
 *   every other character matches itself; a pattern ending in `/**` also matches the path without it.
 */
import { normalizeUrl, siteOf } from './urls.js';

/** Longest pattern and most patterns per list, as the operation's schema bounds them. */
export const MAX_PATH_PATTERN_LENGTH = 200;
export const MAX_PATH_PATTERNS = 20;

type Token = { star: 'one' | 'any' } | { char: string };

/** Why a pattern is refused, or null when it is a valid one. */
export function pathPatternProblem(pattern: string): string | null {
  if (!pattern.startsWith('/')) return 'must start with "/" (it is matched against the URL path)';
  if (/[\s?#]/.test(pattern)) return 'may not contain spaces, "?" or "#" (paths only)';
  if (/\*{3,}/.test(pattern)) return 'has more than two "*" in a row';
  return null;
}

function tokens(pattern: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '*') out.push({ char: pattern[i]! });
    else if (pattern[i + 1] === '*') {
      out.push({ star: 'any' });
      i++;
    } else out.push({ star: 'one' });
  }
  return out;
}

/** A glob compiled to a matcher of URL paths. */
export function compilePathPattern(pattern: string): (path: string) => boolean {
  const problem = pathPatternProblem(pattern);
  if (problem) throw new Error(`path pattern "${pattern}" ${problem}`);
  const list = tokens(pattern);
  const bare = pattern.endsWith('/**') ? pattern.slice(0, -3) : undefined;
  return (path) => (bare !== undefined && (path === bare || (bare === '' && path === '/'))) || globMatch(list, path);
}

/** Steps the set of pattern positions through the path (a Thompson simulation, no backtracking). */
function globMatch(list: Token[], path: string): boolean {
  let states = new Uint8Array(list.length + 1);
  const close = (set: Uint8Array) => {
    // A star may match nothing: a position before a star also stands after it.
    for (let i = 0; i < list.length; i++) if (set[i] && 'star' in list[i]!) set[i + 1] = 1;
  };
  states[0] = 1;
  close(states);
  for (const ch of path) {
    const next = new Uint8Array(list.length + 1);
    let any = false;
    for (let i = 0; i < list.length; i++) {
      if (!states[i]) continue;
      const token = list[i]!;
      if ('char' in token) {
        if (token.char === ch) {
          next[i + 1] = 1;
          any = true;
        }
      } else if (token.star === 'any' || ch !== '/') {
        next[i] = 1;
        any = true;
      }
    }
    if (!any) return false;
    close(next);
    states = next;
  }
  return states[list.length] === 1;
}

export interface ScopeOptions {
  includePaths?: string[];
  excludePaths?: string[];
  /** Hosts under the start site's (blog.example.com for example.com). */
  allowSubdomains?: boolean;
  /** Any host (each still through the SSRF guard and its own robots.txt). */
  allowExternal?: boolean;
}

export class Scope {
  private readonly include: Array<(path: string) => boolean>;
  private readonly exclude: Array<(path: string) => boolean>;

  constructor(
    private readonly site: string,
    private readonly options: ScopeOptions = {},
  ) {
    this.include = (options.includePaths ?? []).map(compilePathPattern);
    this.exclude = (options.excludePaths ?? []).map(compilePathPattern);
  }

  /** Whether a host may be visited: the site's own, a subdomain when allowed, any when external is. */
  hostAllowed(url: string): boolean {
    let host: string;
    try {
      host = siteOf(url);
    } catch {
      return false;
    }
    if (host === this.site || this.options.allowExternal) return true;
    return Boolean(this.options.allowSubdomains) && host.endsWith(`.${this.site}`);
  }

  /** The normal form of a URL when its host is in scope, else null (path filters not applied). */
  own(url: string, base?: string): string | null {
    const normal = normalizeUrl(url, base);
    return normal && this.hostAllowed(normal) ? normal : null;
  }

  /** Whether a URL's path passes the filters: excluded never, included when any include matches (or none given). */
  pathWanted(url: string): boolean {
    const path = new URL(url).pathname;
    if (this.exclude.some((match) => match(path))) return false;
    return this.include.length === 0 || this.include.some((match) => match(path));
  }
}
