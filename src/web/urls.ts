/** URL identity for scrape, map and crawl: one spelling per page, so nothing is listed or fetched twice. */

/**
 * The normal form of an http(s) URL, or null for anything else: scheme and host lower case (URL
 * does that), default port dropped (URL does that too), fragment dropped, runs of slashes in the
 * path collapsed, an empty query dropped.
 */
export function normalizeUrl(input: string, base?: string | URL): string | null {
  let url: URL;
  try {
    url = new URL(input.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  url.pathname = url.pathname.replace(/\/{2,}/g, '/');
  // A bare "?" reads as an empty search; setting it drops the question mark.
  if (!url.search) url.search = '';
  url.username = '';
  url.password = '';
  return url.toString();
}

/** The site a URL belongs to: its host name without a leading "www.". */
export function siteOf(url: string | URL): string {
  return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
}

export function sameSite(url: string | URL, site: string): boolean {
  try {
    return siteOf(url) === site;
  } catch {
    return false;
  }
}

/** Links whose extension says they are not pages: a crawl does not fetch them. */
const ASSET = /\.(?:png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|msi|apk|iso|bin|mp[34]|m4[av]|mov|avi|mkv|webm|ogg|wav|flac|aac|css|js|mjs|json|woff2?|ttf|otf|eot|rss|atom|csv|xlsx?|docx?|pptx?)$/i;

export function looksLikePage(url: string): boolean {
  try {
    return !ASSET.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/** Links to the documents a crawl reads as pages (PDF, Word); their bytes decide in the end. */
const DOCUMENT = /\.(?:pdf|docx)$/i;

export function looksLikeDocument(url: string): boolean {
  try {
    return DOCUMENT.test(new URL(url).pathname);
  } catch {
    return false;
  }
}
