/**
 * One video as Facebook's Relay data describes it (the fields yt-dlp reads too): the playback node
 * (videoDeliveryLegacyFields: browser_native_sd_url/_hd_url, the inline DASH manifest;
 * playable_url on older nodes; length_in_second; video_available_captions_locales) and, for reels,
 * the creation story around it (the owner, the text).
 */
import type { CaptionTrack } from '../post.js';
import { toNumber } from '../browser.js';
import { findObject, type RelayResult } from '../serverjs.js';

export interface RelayVideo {
  id: string;
  durationSeconds?: number;
  width?: number;
  height?: number;
  permalink?: string;
  /** Progressive MP4s (video with sound), lightest first. */
  progressive: string[];
  dashXml?: string;
  dashUrl?: string;
  captions: CaptionTrack[];
  owner?: { id?: string; name?: string };
  title?: string;
  description?: string;
  publishedAt?: string;
  thumbnail?: string;
}

type Node = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);
const obj = (value: unknown): Node | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Node) : undefined);
const text = (value: unknown): string | undefined => str(obj(value)?.text);

function isPlayback(node: Node, id: string | undefined): boolean {
  if (id && node.id !== id && node.videoId !== id) return false;
  return Boolean(obj(node.videoDeliveryLegacyFields) ?? str(node.playable_url) ?? str(node.browser_native_sd_url));
}

/** Facebook writes locales as "en_US"; captions are BCP 47 here. */
function captionTracks(node: Node): CaptionTrack[] {
  const locales = Array.isArray(node.video_available_captions_locales) ? node.video_available_captions_locales : [];
  const tracks: CaptionTrack[] = [];
  for (const entry of locales) {
    const caption = obj(entry);
    const url = str(caption?.captions_url);
    if (!caption || !url) continue;
    tracks.push({ lang: (str(caption.locale) ?? 'und').replace('_', '-'), url, format: 'srt', source: caption.localized_creation_method ? 'asr' : 'author' });
  }
  const single = str(node.captions_url);
  if (single && tracks.length === 0) tracks.push({ lang: 'und', url: single, format: 'srt', source: 'author' });
  if (tracks.length) tracks[0].original = true;
  return tracks;
}

/** The video `id` (or, without one, the first playable video) in the page's Relay results. */
export function relayVideo(results: RelayResult[], id: string | undefined): RelayVideo | undefined {
  const data = results.map((r) => r.data);
  const node = findObject(data, (n) => isPlayback(n, id));
  if (!node) return undefined;
  const videoId = str(node.id) ?? str(node.videoId) ?? id!;
  // A reel's owner and text sit on the creation story whose short_form_video_context plays this video.
  const story = findObject(data, (n) => obj(obj(n.short_form_video_context)?.playback_video)?.id === videoId);
  const context = obj(story?.short_form_video_context);
  const delivery = obj(node.videoDeliveryLegacyFields) ?? node;
  const owner = obj(node.owner) ?? obj(context?.video_owner) ?? obj(story?.owner);
  const published = toNumber(node.publish_time) ?? toNumber(node.creation_time) ?? toNumber(story?.creation_time);
  const playableMs = toNumber(node.playable_duration_in_ms);
  return {
    id: videoId,
    durationSeconds: playableMs ? playableMs / 1000 : toNumber(node.length_in_second),
    width: toNumber(node.width),
    height: toNumber(node.height),
    permalink: str(node.permalink_url) ?? str(node.url),
    progressive: [str(delivery.browser_native_sd_url), str(delivery.playable_url), str(node.playable_url), str(delivery.browser_native_hd_url), str(delivery.playable_url_quality_hd)].filter(
      (u, i, all): u is string => Boolean(u) && all.indexOf(u) === i,
    ),
    dashXml: str(delivery.dash_manifest_xml_string) ?? str(delivery.dash_manifest),
    dashUrl: str(delivery.dash_manifest_url),
    captions: captionTracks(node),
    owner: owner ? { id: str(owner.id), name: str(owner.name) } : undefined,
    title: str(node.name) ?? text(node.title),
    description: text(node.savable_description) ?? text(story?.message) ?? text(node.message) ?? text(context?.video_description),
    publishedAt: published ? new Date(published * 1000).toISOString() : undefined,
    thumbnail: str(obj(node.thumbnailImage)?.uri) ?? str(obj(obj(node.preferred_thumbnail)?.image)?.uri),
  };
}
