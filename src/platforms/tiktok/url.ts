/** TikTok video URLs: /@user/video/<id>, /v/<id>.html, /embed/v2/<id>, and vm./vt./www.tiktok.com/t/ short links. */
export interface TikTokRef {
  id?: string;
  user?: string;
  /** A short link, resolved by following its redirect. */
  short?: string;
}

export function isTikTokHost(host: string): boolean {
  return host === 'tiktok.com' || host.endsWith('.tiktok.com');
}

export function parseTikTokUrl(url: URL): TikTokRef | undefined {
  const host = url.hostname.toLowerCase();
  if (!isTikTokHost(host)) return undefined;
  const path = url.pathname;
  const full = /^\/@([^/]+)\/(?:video|photo)\/(\d+)/.exec(path);
  if (full) return { user: decodeURIComponent(full[1]), id: full[2] };
  const bare = /^\/(?:v|embed(?:\/v2)?|share\/video)\/(\d+)/.exec(path);
  if (bare) return { id: bare[1] };
  if ((host === 'vm.tiktok.com' || host === 'vt.tiktok.com') && /^\/[A-Za-z0-9]+\/?$/.test(path)) return { short: url.toString() };
  if (/^\/t\/[A-Za-z0-9]+\/?$/.test(path)) return { short: url.toString() };
  return undefined;
}
