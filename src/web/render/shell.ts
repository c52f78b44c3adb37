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

/** Elements whose content no reader sees as text. */
const HIDDEN_OPEN = /<(script|style|noscript|template|svg|head)\b/iy;
const HIDDEN_CLOSE: Record<string, RegExp> = Object.fromEntries(
  ['script', 'style', 'noscript', 'template', 'svg', 'head'].map((name) => [name, new RegExp(`</${name}\\s*>`, 'gi')]),
);

/**
 * Characters of the text a reader would see, roughly (tags, scripts, styles, templates, the head and
 * comments left out, white space collapsed, a character reference one character), counted in one
 * pass that stops once past `limit`: on an ordinary page the answer is known after its first
 * paragraphs, so a crawl in `auto` mode does not pay a full scan for every page.
 */
export function visibleTextLength(html: string, limit = Infinity): number {
  let count = 0;
  let spaced = true;
  let i = 0;
  const n = html.length;
  while (i < n && count <= limit) {
    const c = html.charCodeAt(i);
    if (c === 60 /* < */) {
      if (html.startsWith('<!--', i)) {
        const end = html.indexOf('-->', i + 4);
        i = end < 0 ? n : end + 3;
        continue;
      }
      HIDDEN_OPEN.lastIndex = i;
      const hidden = HIDDEN_OPEN.exec(html);
      if (hidden) {
        const close = HIDDEN_CLOSE[hidden[1].toLowerCase()];
        close.lastIndex = i;
        i = close.exec(html) ? close.lastIndex : n;
      } else {
        const end = html.indexOf('>', i + 1);
        i = end < 0 ? n : end + 1;
      }
      // A tag separates words as white space does.
      if (!spaced && count > 0) {
        count++;
        spaced = true;
      }
      continue;
    }
    if (c === 32 || (c >= 9 && c <= 13)) {
      if (!spaced && count > 0) {
        count++;
        spaced = true;
      }
      i++;
      continue;
    }
    if (c === 38 /* & */) {
      const end = html.indexOf(';', i + 1);
      if (end > i && end - i <= 10) i = end;
    }
    count++;
    spaced = false;
    i++;
  }
  // The collapsed text is trimmed: a trailing separator is not text.
  return spaced && count > 0 ? count - 1 : count;
}

export function looksLikeAppShell(html: string): boolean {
  if (!/<script\b/i.test(html)) return false;
  const text = visibleTextLength(html, ROOT_SHELL_TEXT_CHARS);
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
  if (status === 200 && visibleTextLength(html, 2000) > 2000) return false;
  return CHALLENGE_MARKERS.test(html.slice(0, 200_000));
}
