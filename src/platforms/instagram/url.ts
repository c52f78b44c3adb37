/** Instagram post URLs: /p/<code>, /reel/<code>, /reels/<code>, /tv/<code>, optionally after /<user>/. */
export interface InstagramRef {
  code: string;
  kind: 'p' | 'reel' | 'tv';
}

export function parseInstagramUrl(url: URL): InstagramRef | undefined {
  const host = url.hostname.toLowerCase();
  if (host !== 'instagram.com' && !host.endsWith('.instagram.com')) return undefined;
  const match = /^\/(?:[A-Za-z0-9._]+\/)?(p|reels?|tv)\/([A-Za-z0-9_-]+)/.exec(url.pathname);
  if (!match) return undefined;
  return { code: match[2], kind: match[1].startsWith('reel') ? 'reel' : (match[1] as 'p' | 'tv') };
}
