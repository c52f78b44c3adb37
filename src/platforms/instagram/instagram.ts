/**
 * Instagram: a logged-out post page carries OpenGraph tags: `og:video` (the mp4 on the CDN) for
 * video posts, `og:image`, and `og:description` of the form
 * `990K likes, 8,873 comments - user on May 24, 2021: "caption"`. Instagram publishes no captions.
 * A page that sends the visitor to the login screen is a private or removed post.
 */
import * as cheerio from 'cheerio';
import { GleanerError } from '../../errors.js';
import { BROWSER_UA, compactNumber, defined, fetchOk, hashtags, hostIs, metaTags, type PlatformAdapter, type PlatformPost } from '../post.js';

const POST_PATH = /^\/(?:[\w.]+\/)?(p|reels?|tv)\/([\w-]+)/;

export function instagramShortcode(url: URL): { kind: 'p' | 'reel' | 'tv'; code: string } | undefined {
  if (!hostIs(url, 'instagram.com', 'instagr.am')) return undefined;
  const match = POST_PATH.exec(url.pathname);
  if (!match) return undefined;
  const kind = match[1] === 'reels' ? 'reel' : (match[1] as 'p' | 'reel' | 'tv');
  return { kind, code: match[2] };
}

const DESCRIPTION = /^\s*([\d.,]+[KMB]?)\s+likes?,\s*([\d.,]+[KMB]?)\s+comments?\s+-\s+([\w.]+)\s+on\s+([A-Z][a-z]+ \d{1,2}, \d{4})(?::\s*"([\s\S]*)"\.?)?\s*$/;

export function instagramPost(html: string, code: string, kind: string): PlatformPost {
  const $ = cheerio.load(html);
  const meta = metaTags($);
  const ogUrl = meta.get('og:url');
  if (!ogUrl && !meta.get('og:description') && !meta.get('og:title')) {
    throw new GleanerError('CONTENT_UNAVAILABLE', `Instagram does not show the post ${code} to logged-out visitors; it may be private or removed.`);
  }
  const description = meta.get('og:description') ?? meta.get('description') ?? '';
  const parsed = DESCRIPTION.exec(description);
  const username = parsed?.[3] ?? /\(@([\w.]+)\)/.exec(meta.get('twitter:title') ?? '')?.[1];
  const displayName = /^(.*?) on Instagram/.exec(meta.get('og:title') ?? '')?.[1] ?? /^(.*?) \(@/.exec(meta.get('twitter:title') ?? '')?.[1];
  const caption = parsed?.[5] ?? (parsed ? null : description || null);
  const date = parsed?.[4] ? new Date(`${parsed[4]} 00:00:00 UTC`) : undefined;
  const videoUrl = meta.get('og:video:secure_url') ?? meta.get('og:video') ?? meta.get('og:video:url');
  const image = meta.get('og:image');
  const width = Number(meta.get('og:video:width')) || undefined;
  const height = Number(meta.get('og:video:height')) || undefined;
  const canonical = ogUrl ?? `https://www.instagram.com/${kind}/${code}/`;
  return {
    metadata: {
      platform: 'instagram',
      url: canonical,
      id: code,
      title: meta.get('og:title') ?? null,
      description: caption,
      author: username || displayName
        ? { name: displayName ?? username ?? null, ...defined({ id: meta.get('instapp:owner_user_id'), handle: username ? `@${username}` : undefined, url: username ? `https://www.instagram.com/${username}/` : undefined }) }
        : null,
      counts: defined({ likes: compactNumber(parsed?.[1]), comments: compactNumber(parsed?.[2]) }),
      thumbnails: image ? [{ url: image }] : [],
      ...(videoUrl ? { media: { type: 'video' as const, url: videoUrl, ...defined({ width, height }) } } : image ? { media: { type: 'image' as const, url: image } } : {}),
      ...(date && !Number.isNaN(date.getTime()) ? { publishedAt: date.toISOString() } : {}),
      tags: hashtags(caption),
    },
    captions: [],
    media: videoUrl ? { url: videoUrl, headers: { referer: 'https://www.instagram.com/' } } : undefined,
  };
}

export const instagramAdapter: PlatformAdapter = {
  platform: 'instagram',
  label: 'Instagram',
  matches: (url) => instagramShortcode(url) !== undefined,
  async load(http, url, signal) {
    const ref = instagramShortcode(url)!;
    const pageUrl = `https://www.instagram.com/${ref.kind}/${ref.code}/`;
    const page = await fetchOk(http, pageUrl, 'Instagram', { headers: { 'user-agent': BROWSER_UA, 'accept-language': 'en-US,en;q=0.8' }, signal });
    if (/\/accounts\/login/.test(new URL(page.url).pathname)) {
      throw new GleanerError('CONTENT_UNAVAILABLE', `Instagram asks for a login to show the post ${ref.code}; it is private or age-restricted.`);
    }
    return instagramPost(page.text(), ref.code, ref.kind);
  },
};
