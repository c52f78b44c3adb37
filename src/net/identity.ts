/**
 * Who Gleaner says it is when it fetches a web page: a current desktop Chrome, as sites serve their
 * real pages to browsers and an unknown client a stripped or refused one. The one place this lives
 * for web page fetches and the client's default; GLEANER_USER_AGENT replaces the user agent. (The
 * platform adapters' identities are in the platform profile.) robots.txt is still read for the
 * product token "gleaner" (web/robots.ts), so a site can address Gleaner whatever the user agent.
 */

/**
 * Chrome 156 on Windows, in the reduced form every Chrome sends since version 110 (minor versions
 * zeroed). Source: the current stable Chromium of Debian 12 (156.0.8078.79, November 2026).
 * Update it when it is six months old.
 */
export const BROWSER_USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

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

/** Headers of a page fetch (the user agent is the client's, see HttpClient's userAgent). */
export function pageHeaders(lang?: string): Record<string, string> {
  return { accept: PAGE_ACCEPT, 'accept-language': acceptLanguage(lang) };
}
