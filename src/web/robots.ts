/**
 * robots.txt (RFC 9309): the groups for our product token (else "*"), Allow/Disallow with "*" and
 * "$" patterns where the longest match wins and Allow wins a tie, Sitemap lines and Crawl-delay.
 */
import type { HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';

/** The product token sites name in robots.txt to address Gleaner. */
export const ROBOTS_AGENT = 'gleaner';

interface Rule {
  allow: boolean;
  pattern: string;
  regex: RegExp;
}

export interface Robots {
  /** True when the rules let Gleaner fetch this URL. */
  allowed(url: string): boolean;
  sitemaps: string[];
  /** Crawl-delay for our group, in milliseconds. */
  crawlDelayMs?: number;
  /** robots.txt could not be read (server error or unreachable). */
  unreachable?: boolean;
}

function compile(pattern: string): RegExp {
  const anchored = pattern.endsWith('$');
  const body = (anchored ? pattern.slice(0, -1) : pattern)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`);
}

/** Percent-encoding made uniform so /caf%C3%A9 and /café compare equal. */
function normalizePath(path: string): string {
  try {
    return encodeURI(decodeURI(path));
  } catch {
    return path;
  }
}

export function parseRobots(text: string, agent = ROBOTS_AGENT): Robots {
  const groups: Array<{ agents: string[]; rules: Rule[]; delay?: number }> = [];
  const sitemaps: string[] = [];
  let current: { agents: string[]; rules: Rule[]; delay?: number } | undefined;
  let lastWasAgent = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (key === 'sitemap') {
      if (value) sitemaps.push(value);
    } else if (current && (key === 'allow' || key === 'disallow')) {
      if (value) current.rules.push({ allow: key === 'allow', pattern: normalizePath(value), regex: compile(normalizePath(value)) });
    } else if (current && key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.delay = seconds * 1000;
    }
  }
  const own = groups.filter((g) => g.agents.some((a) => a.split('/')[0].trim() === agent));
  const chosen = own.length ? own : groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  const delays = chosen.map((g) => g.delay).filter((d): d is number => d !== undefined);
  return {
    sitemaps,
    crawlDelayMs: delays.length ? Math.max(...delays) : undefined,
    allowed(url: string) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return false;
      }
      if (parsed.pathname === '/robots.txt') return true;
      const path = normalizePath(parsed.pathname + parsed.search);
      let best: Rule | undefined;
      for (const rule of rules) {
        if (!rule.regex.test(path)) continue;
        if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) best = rule;
      }
      return best ? best.allow : true;
    },
  };
}

const ALLOW_ALL: Robots = { allowed: () => true, sitemaps: [] };

/**
 * The robots.txt of an origin. Missing (4xx) means everything is allowed; a server error or an
 * unreachable site means nothing is (RFC 9309), flagged `unreachable` so callers can say why.
 */
export async function fetchRobots(http: HttpClient, origin: string, signal?: AbortSignal): Promise<Robots> {
  try {
    const response = await http.fetch(`${origin}/robots.txt`, { signal, maxBytes: 512 * 1024, timeoutMs: 15_000 });
    if (response.status >= 200 && response.status < 300) return parseRobots(response.text());
    if (response.status >= 400 && response.status < 500) return ALLOW_ALL;
    return { allowed: () => false, sitemaps: [], unreachable: true };
  } catch (error) {
    // A guard refusal is the caller's business, not a robots.txt problem.
    if (error instanceof GleanerError && error.code === 'URL_NOT_ALLOWED') throw error;
    if (error instanceof GleanerError && error.code === 'PAYLOAD_TOO_LARGE') return ALLOW_ALL;
    return { allowed: () => false, sitemaps: [], unreachable: true };
  }
}
