/**
 * An Instagram media item in the shape Instagram's own API gives it (the web's embedded Relay data
 * xig_polaris_media → if_not_gated_logged_out, and /api/v1/media/{pk}/info/ items share it):
 * media_type 1 photo, 2 video, 8 carousel; video_versions; has_audio; taken_at (Unix seconds);
 * user; exact counts; an optional DASH manifest with an audio-only representation.
 */
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../../model/content.js';
import type { PlatformPost } from '../post.js';
import { hashtags, titleFrom, toNumber } from '../browser.js';
import { parseDashManifest } from '../dash.js';

interface Version {
  url?: string;
  width?: number;
  height?: number;
  type?: number;
}

export interface IgItem {
  code?: string;
  pk?: string | number;
  media_type?: number | string;
  product_type?: string;
  has_audio?: boolean;
  taken_at?: number | string;
  video_duration?: number | string;
  video_versions?: Version[];
  video_dash_manifest?: string;
  image_versions2?: { candidates?: Version[] };
  original_width?: number;
  original_height?: number;
  user?: { username?: string; full_name?: string; pk?: string | number; id?: string; profile_pic_url?: string; is_verified?: boolean };
  caption?: { text?: string } | null;
  like_count?: number | string;
  comment_count?: number | string;
  play_count?: number | string;
  view_count?: number | string;
  carousel_media?: IgItem[];
}

/** The user agent is the adapter's to add (withUserAgent): it comes from the platform profile. */
const headers = { referer: 'https://www.instagram.com/' };

function lightest(versions: Version[] | undefined): Version | undefined {
  return [...(versions ?? [])].filter((v) => v.url).sort((a, b) => (a.width ?? 0) * (a.height ?? 0) - (b.width ?? 0) * (b.height ?? 0))[0];
}

/** The DASH manifest's audio-only representation (Gleaner parses it), else the lightest rendition. */
function speechSource(item: IgItem): string | undefined {
  if (item.video_dash_manifest) {
    try {
      const audio = parseDashManifest(item.video_dash_manifest, 'https://www.instagram.com/').audio[0];
      if (audio) return audio.url;
    } catch {
      /* the renditions will do */
    }
  }
  return lightest(item.video_versions)?.url;
}

function thumbnail(item: IgItem) {
  const best = item.image_versions2?.candidates?.[0];
  return best?.url ? { url: best.url, width: best.width ?? item.original_width, height: best.height ?? item.original_height } : undefined;
}

export function postFromItem(item: IgItem, code: string): PlatformPost {
  const mediaType = Number(item.media_type);
  const user = item.user;
  const caption = item.caption?.text?.trim() || null;
  const taken = toNumber(item.taken_at);
  const children = item.carousel_media ?? [];
  const type: Metadata['type'] = mediaType === 8 ? 'carousel' : mediaType === 2 ? 'video' : 'image';
  const metadata: Metadata = {
    platform: 'instagram',
    type,
    url: `https://www.instagram.com/${item.product_type === 'clips' ? 'reel' : 'p'}/${item.code ?? code}/`,
    id: item.code ?? code,
    title: titleFrom(caption),
    description: caption,
    author: user
      ? { name: user.full_name || user.username || null, handle: user.username, id: user.pk !== undefined ? String(user.pk) : user.id, url: user.username ? `https://www.instagram.com/${user.username}/` : undefined, avatarUrl: user.profile_pic_url, verified: user.is_verified }
      : null,
    counts: { likes: toNumber(item.like_count), comments: toNumber(item.comment_count), views: toNumber(item.play_count) ?? toNumber(item.view_count) },
    // A carousel lists each of its items (their pictures); a single post its own.
    thumbnails: (mediaType === 8 ? children.map(thumbnail) : [thumbnail(item)]).filter((t): t is NonNullable<typeof t> => Boolean(t)),
    durationSeconds: toNumber(item.video_duration),
    publishedAt: taken ? new Date(taken * 1000).toISOString() : undefined,
    tags: hashtags(caption),
  };
  // A carousel's first video is what a transcript of it can mean.
  const video = mediaType === 2 ? item : children.find((c) => Number(c.media_type) === 2);
  if (!video) return { metadata, captions: [], noMedia: new GleanerError('TRANSCRIPT_UNAVAILABLE', `Instagram post ${code} holds only pictures: there is no video or audio to transcribe.`) };
  if (video.has_audio === false) return { metadata, captions: [], noMedia: new GleanerError('TRANSCRIPT_UNAVAILABLE', `The video of Instagram post ${code} has no sound to transcribe.`) };
  const url = speechSource(video);
  if (!url) return { metadata, captions: [], noMedia: new GleanerError('CONTENT_UNAVAILABLE', `Instagram gave no playable video for post ${code}.`) };
  return { metadata, captions: [], media: { url, headers, durationSeconds: toNumber(video.video_duration) } };
}
