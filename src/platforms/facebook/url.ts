/**
 * Facebook video URLs: /watch/?v=<id>, /<page>/videos/[<slug>/]<id>, /video.php?v=<id>, /reel/<id>,
 * and the short forms fb.watch/<code> and /share/v/<code> (resolved by following their redirect).
 */
export interface FacebookRef {
  id?: string;
  /** Path of a /<page>/videos/ URL, kept as the page to fetch. */
  path?: string;
  short?: string;
}

export function parseFacebookUrl(url: URL): FacebookRef | undefined {
  const host = url.hostname.toLowerCase();
  if (host === 'fb.watch' || host === 'www.fb.watch') return /^\/[A-Za-z0-9_-]+\/?$/.test(url.pathname) ? { short: url.toString() } : undefined;
  if (host !== 'facebook.com' && !host.endsWith('.facebook.com')) return undefined;
  const path = url.pathname;
  const byQuery = url.searchParams.get('v') ?? url.searchParams.get('video_id');
  if (/^\/(watch\/?|video\.php|video\/embed|plugins\/video\.php)$/.test(path) && byQuery && /^\d+$/.test(byQuery)) return { id: byQuery };
  const videos = /^\/(?:[^/]+\/)?videos\/(?:[^/]+\/)?(\d+)\/?$/.exec(path);
  if (videos) return { id: videos[1], path };
  const reel = /^\/reel\/(\d+)/.exec(path);
  if (reel) return { id: reel[1] };
  if (/^\/share\/(?:v|r)\/[A-Za-z0-9_-]+\/?$/.test(path)) return { short: url.toString() };
  return undefined;
}
