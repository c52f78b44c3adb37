/**
 * The metadata reply: the field names of the project's reply shapes (those the Supadata SDK reads:
 * platform, type, id, url, title, description, author, stats, media, tags, createdAt,
 * additionalData), with Gleaner's own fields kept beside them. Unknown values are null or [].
 */
import type { Metadata } from '../model/content.js';

export type ReplyPlatform = 'youtube' | 'tiktok' | 'instagram' | 'twitter' | 'facebook' | 'web';

function replyPlatform(platform: Metadata['platform']): ReplyPlatform {
  if (platform === 'x') return 'twitter';
  // A direct media file is a resource on the web; its type says it is a video.
  if (platform === 'video') return 'web';
  return platform;
}

function replyType(metadata: Metadata): NonNullable<Metadata['type']> {
  if (metadata.type) return metadata.type;
  return metadata.platform === 'web' ? 'page' : 'video';
}

function replyMedia(metadata: Metadata, type: NonNullable<Metadata['type']>) {
  const thumbnail = metadata.thumbnails[0];
  const image = (t = thumbnail) => ({ type: 'image' as const, url: t?.url ?? null, width: t?.width ?? null, height: t?.height ?? null });
  switch (type) {
    case 'video':
      return {
        type: 'video' as const,
        url: metadata.mediaUrl ?? null,
        duration: metadata.durationSeconds ?? null,
        width: thumbnail?.width ?? null,
        height: thumbnail?.height ?? null,
        thumbnailUrl: thumbnail?.url ?? null,
      };
    case 'image':
      return image();
    case 'carousel':
      return { type: 'carousel' as const, items: metadata.thumbnails.map((t) => image(t)) };
    case 'post':
      return { type: 'post' as const, text: metadata.description ?? '' };
    case 'page':
      return thumbnail ? image() : null;
  }
}

export function metadataReply(metadata: Metadata) {
  const type = replyType(metadata);
  const author = metadata.author;
  const counts = metadata.counts ?? {};
  return {
    ...metadata,
    platform: replyPlatform(metadata.platform),
    type,
    id: metadata.id ?? metadata.url,
    url: metadata.canonicalUrl ?? metadata.url,
    author: {
      ...author,
      username: author?.handle?.replace(/^@/, '') ?? null,
      displayName: author?.name ?? null,
      avatarUrl: author?.avatarUrl ?? null,
      verified: author?.verified ?? null,
    },
    stats: { views: counts.views ?? null, likes: counts.likes ?? null, comments: counts.comments ?? null, shares: counts.shares ?? null },
    media: replyMedia(metadata, type),
    tags: metadata.tags ?? [],
    createdAt: metadata.publishedAt ?? null,
    additionalData: {
      ...(metadata.platform === 'video' ? { source: 'media-file' } : {}),
      ...(metadata.language ? { language: metadata.language } : {}),
      ...(metadata.siteName ? { siteName: metadata.siteName } : {}),
      ...(metadata.favicon ? { favicon: metadata.favicon } : {}),
      ...(metadata.canonicalUrl ? { canonicalUrl: metadata.canonicalUrl } : {}),
      ...(counts.saves !== undefined ? { saves: counts.saves } : {}),
      ...(metadata.documentType ? { documentType: metadata.documentType } : {}),
      ...(metadata.pages !== undefined ? { pages: metadata.pages } : {}),
    },
  };
}
