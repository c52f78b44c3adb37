/**
 * Instagram's embed page (/p/<code>/embed/captioned/), which still carries the post for logged-out
 * visitors: PolarisEmbedSimple's contextJSON (a JSON string inside the page's ServerJS) holds
 * {context: {copyright_blocked}, gql_data: {shortcode_media}} in the older GraphQL shape.
 */
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../../model/content.js';
import type { PlatformPost } from '../post.js';
import { hashtags, titleFrom, toNumber } from '../browser.js';

interface ShortcodeMedia {
  __typename?: string;
  shortcode?: string;
  is_video?: boolean;
  video_url?: string;
  video_duration?: number;
  video_view_count?: number;
  display_url?: string;
  dimensions?: { width?: number; height?: number };
  taken_at_timestamp?: number;
  product_type?: string;
  owner?: { id?: string; username?: string; full_name?: string; is_verified?: boolean; profile_pic_url?: string };
  edge_media_to_caption?: { edges?: Array<{ node?: { text?: string } }> };
  edge_media_to_comment?: { count?: number };
  edge_liked_by?: { count?: number };
  edge_media_preview_like?: { count?: number };
  edge_sidecar_to_children?: { edges?: Array<{ node?: ShortcodeMedia }> };
}

interface EmbedContext {
  context?: { copyright_blocked?: boolean };
  gql_data?: { shortcode_media?: ShortcodeMedia };
}

/** The decoded contextJSON of an embed page, or undefined when the page has none. */
export function embedContext(html: string): EmbedContext | undefined {
  const raw = /"contextJSON":"((?:[^"\\]|\\.)*)"/.exec(html)?.[1];
  if (!raw) return undefined;
  try {
    return JSON.parse(JSON.parse(`"${raw}"`) as string) as EmbedContext;
  } catch {
    return undefined;
  }
}

export function postFromEmbed(context: EmbedContext, code: string): PlatformPost | undefined {
  const media = context.gql_data?.shortcode_media;
  if (!media) return undefined;
  if (context.context?.copyright_blocked) {
    throw new GleanerError('CONTENT_UNAVAILABLE', `Instagram blocks post ${code} on copyright grounds: it is not shown outside the app.`);
  }
  const caption = media.edge_media_to_caption?.edges?.[0]?.node?.text?.trim() || null;
  const owner = media.owner;
  const children = (media.edge_sidecar_to_children?.edges ?? []).map((e) => e.node).filter((n): n is ShortcodeMedia => Boolean(n));
  const picture = (m: ShortcodeMedia) => (m.display_url ? { url: m.display_url, width: m.dimensions?.width, height: m.dimensions?.height } : undefined);
  const views = toNumber(media.video_view_count);
  const metadata: Metadata = {
    platform: 'instagram',
    type: children.length ? 'carousel' : media.is_video ? 'video' : 'image',
    url: `https://www.instagram.com/${media.product_type === 'clips' ? 'reel' : 'p'}/${media.shortcode ?? code}/`,
    id: media.shortcode ?? code,
    title: titleFrom(caption),
    description: caption,
    author: owner ? { name: owner.full_name || owner.username || null, handle: owner.username, id: owner.id, url: owner.username ? `https://www.instagram.com/${owner.username}/` : undefined, avatarUrl: owner.profile_pic_url, verified: owner.is_verified } : null,
    // The embed reads 0 views for reels it does not count: left out rather than reported as 0.
    counts: { likes: media.edge_liked_by?.count ?? media.edge_media_preview_like?.count, comments: media.edge_media_to_comment?.count, views: views ? views : undefined },
    thumbnails: (children.length ? children.map(picture) : [picture(media)]).filter((t): t is NonNullable<typeof t> => Boolean(t)),
    durationSeconds: toNumber(media.video_duration),
    publishedAt: media.taken_at_timestamp ? new Date(media.taken_at_timestamp * 1000).toISOString() : undefined,
    tags: hashtags(caption),
  };
  const video = media.is_video ? media : children.find((c) => c.is_video);
  if (!video) return { metadata, captions: [], noMedia: new GleanerError('TRANSCRIPT_UNAVAILABLE', `Instagram post ${code} holds only pictures: there is no video or audio to transcribe.`) };
  if (!video.video_url) return { metadata, captions: [], noMedia: new GleanerError('CONTENT_UNAVAILABLE', `Instagram gave no playable video for post ${code}.`) };
  return { metadata, captions: [], media: { url: video.video_url, durationSeconds: toNumber(video.video_duration), headers: { referer: 'https://www.instagram.com/' } } };
}
