/**
 * Who Gleaner says it is when it fetches a web page, and on any request that names no user agent
 * of its own (a YouTube caption download, an image): the platform profile's desktop browser, a
 * current Chrome with the client hints that belong to it, as sites serve their real pages to
 * browsers and an unknown client a stripped or refused one. One source of identities: the profile
 * (src/profile/builtin.ts, GLEANER_PLATFORM_PROFILE); GLEANER_USER_AGENT replaces the user agent
 * (and then no Chrome client hints are sent). robots.txt is still read for the product token
 * "gleaner" (web/robots.ts), so a site can address Gleaner whatever the user agent.
 */
import { BUILTIN_PROFILE } from '../profile/builtin.js';

/** A browser identity as the outbound client sends it by default: its user agent and client hints. */
export interface DefaultIdentity {
  userAgent: string;
  /** Sec-CH-UA, Sec-CH-UA-Mobile, Sec-CH-UA-Platform of that browser (none for a user agent that is not Chrome's). */
  hints: Record<string, string>;
}

/** The client-hint headers (sec-ch-ua*) of a browser identity's header set. */
export function clientHints(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => /^sec-ch-ua/i.test(name)));
}

/** A profile browser identity as the outbound client's default. */
export function defaultIdentity(browser: { userAgent: string; headers: Record<string, string> }): DefaultIdentity {
  return { userAgent: browser.userAgent, hints: clientHints(browser.headers) };
}

/** The built-in profile's desktop browser: the default of an outbound client given no other. */
export const BROWSER_IDENTITY: DefaultIdentity = defaultIdentity(BUILTIN_PROFILE.browsers.desktop);

/** Its user agent. */
export const BROWSER_USER_AGENT = BROWSER_IDENTITY.userAgent;

/** What a browser asks for when it opens a page. */
export const PAGE_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5';

/**
 * The Accept-Language header for a preferred language (`de`, `pt-BR`, `pt_BR`): that language, then
 * its base language, then any. Without one, a browser's English default.
 */
export function acceptLanguage(lang?: string): string {
  const tag = lang?.trim().replace(/_/g, '-');
  if (!tag) return 'en-US,en;q=0.9';
  const base = tag.split('-')[0].toLowerCase();
  return base === tag.toLowerCase() ? `${tag},*;q=0.5` : `${tag},${base};q=0.9,*;q=0.5`;
}

/** Headers of a page fetch (the user agent is the client's, see HttpClient's identity). */
export function pageHeaders(lang?: string): Record<string, string> {
  return { accept: PAGE_ACCEPT, 'accept-language': acceptLanguage(lang) };
}
