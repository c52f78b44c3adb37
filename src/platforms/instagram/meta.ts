/**
 * The last fallback for Instagram: until 2024 a logged-out post page carried its facts in meta tags: OpenGraph (og:video,
 * og:image, og:url), the Twitter card title ("Name (@handle) • Instagram video") and a description
 * of the form '990K likes, 8,873 comments - handle on May 24, 2021: "caption"'. Some reels'
 * logged-out pages carry no video URL; that is said plainly rather than guessed around.
 */
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../../model/content.js';
import type { PlatformPost } from '../post.js';
import { hashtags, parseCount, titleFrom, toNumber } from '../browser.js';
import { metaTags } from '../html-meta.js';
import type { InstagramRef } from './url.js';

const DESCRIPTION = /^([\d.,]+[KMB]?) likes?, ([\d.,]+[KMB]?) comments? - ([A-Za-z0-9._]+) on ([A-Z][a-z]+ \d{1,2}, \d{4})(?::\s*"([\s\S]*)"\.?)?\s*$/;
const CARD_TITLE = /^(.*) \(@([A-Za-z0-9._]+)\) • Instagram (video|reel|photo|post)/;

export function postFromMetaTags(html: string, ref: InstagramRef, pageUrl: string): PlatformPost {
  const meta = metaTags(html);
  const card = CARD_TITLE.exec(meta.get('twitter:title') ?? '');
  const description = DESCRIPTION.exec(meta.get('og:description') ?? meta.get('description') ?? '');
  if (!card && !description && !meta.get('og:url')) {
    throw new GleanerError('CONTENT_NOT_FOUND', `Instagram post ${ref.code} does not exist, or was removed.`);
  }
  const caption = description?.[5]?.trim() || /on Instagram: "([\s\S]*)"$/.exec(meta.get('og:title') ?? '')?.[1]?.trim() || null;
  const handle = card?.[2] ?? description?.[3];
  const date = description ? new Date(`${description[4]} 00:00:00 UTC`) : undefined;
  const width = toNumber(meta.get('og:video:width'));
  const height = toNumber(meta.get('og:video:height'));
  const images = [...new Set([meta.get('og:image'), meta.get('twitter:image')].filter((u): u is string => Boolean(u)))];
  const metadata: Metadata = {
    platform: 'instagram',
    url: meta.get('og:url') || pageUrl,
    id: ref.code,
    title: titleFrom(caption),
    description: caption,
    author: handle || card ? { name: card?.[1] ?? handle ?? null, handle, id: meta.get('instapp:owner_user_id'), url: handle ? `https://www.instagram.com/${handle}/` : undefined } : null,
    counts: description ? { likes: parseCount(description[1]), comments: parseCount(description[2]) } : undefined,
    thumbnails: images.map((u) => ({ url: u })),
    publishedAt: date && !Number.isNaN(date.getTime()) ? date.toISOString().slice(0, 10) : undefined,
    tags: hashtags(caption),
  };
  const video = meta.get('og:video:secure_url') || meta.get('og:video') || meta.get('og:video:url');
  if (video) {
    metadata.thumbnails = metadata.thumbnails.map((t) => ({ ...t, width, height }));
    return { metadata, captions: [], media: { url: video, headers: { referer: 'https://www.instagram.com/' } } };
  }
  const kind = card?.[3];
  const noMedia =
    kind === 'photo' || kind === 'post'
      ? new GleanerError('TRANSCRIPT_UNAVAILABLE', `Instagram post ${ref.code} is a photo post: it has no video or audio to transcribe.`)
      : new GleanerError('CONTENT_UNAVAILABLE', `Instagram did not give a logged-out visitor the video of ${ref.code}; it may need a login, be private or region-locked.`);
  return { metadata, captions: [], noMedia };
}
