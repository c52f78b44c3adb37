/**
 * Whether a plainly fetched page needs a browser: an app shell (the server sends a root container
 * and scripts, the text comes later from JavaScript) or a JavaScript challenge (a bot check that a
 * browser passes by running its script). Read from the HTML text alone, with no DOM: it runs on
 * every page of a crawl in `auto` mode, on the event loop.
 */

/** Visible text below this many characters, with scripts present, is a shell whatever its markup. */
const SHELL_TEXT_CHARS = 250;
/** With an app's root container, a page is still a shell up to this much text (a header and a footer). */
const ROOT_SHELL_TEXT_CHARS = 800;

const ROOT_CONTAINER =
  /<(?:div|main|section|body)\b[^>]*\bid\s*=\s*["']?(?:root|app|__next|__nuxt|___gatsby|svelte|q-app|app-root|main-app|application)["'\s/>]|<app-root\b|\bng-version=|\bdata-reactroot\b/i;
const NEEDS_JS_NOTICE = /<noscript\b[^>]*>[^<]*(?:<[^>]*>[^<]*){0,4}?(?:enable|turn on|requires?)\s+javascript/i;

/** The text a reader would see, roughly: tags, scripts, styles, templates and comments removed. */
export function visibleTextLength(html: string): number {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<head\b[\s\S]*?<\/head\s*>/i, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[#\w]+;/g, 'x')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length;
}

export function looksLikeAppShell(html: string): boolean {
  if (!/<script\b/i.test(html)) return false;
  const text = visibleTextLength(html);
  if (text < SHELL_TEXT_CHARS) return true;
  return text < ROOT_SHELL_TEXT_CHARS && (ROOT_CONTAINER.test(html) || NEEDS_JS_NOTICE.test(html));
}

/** Markers of the common JavaScript challenges (Cloudflare, Sucuri, Imperva, AWS WAF, Vercel, generic). */
const CHALLENGE_MARKERS =
  /<title>\s*(?:just a moment\.{0,3}|attention required|checking your browser|please wait|one moment, please|vercel security checkpoint)|cf_chl_opt|challenge-platform|enable javascript and cookies to continue|checking (?:if the site connection is secure|your browser before accessing)|sucuri_cloudproxy_js|_incapsula_resource|awswafcookiedomainlist|window\.gokuprops/i;

/**
 * A reply that is a challenge to pass with JavaScript rather than the page: an error status (or a
 * tiny 200) with a challenge's markers, or Cloudflare's own header saying so.
 */
export function looksLikeChallenge(status: number, headers: Record<string, string>, html: string): boolean {
  if (headers['cf-mitigated'] === 'challenge') return true;
  if (status !== 403 && status !== 503 && status !== 429 && status !== 202 && status !== 200) return false;
  if (status === 200 && visibleTextLength(html) > 2000) return false;
  return CHALLENGE_MARKERS.test(html.slice(0, 200_000));
}
