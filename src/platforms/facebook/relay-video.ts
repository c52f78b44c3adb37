/**
 * One video as Facebook's Relay data describes it (the fields yt-dlp reads too): the playback node
 * (videoDeliveryLegacyFields: browser_native_sd_url/_hd_url, the inline DASH manifest;
 * playable_url on older nodes; and beside them the newer videoDeliveryResponseFragment
 * .videoDeliveryResponseResult: dash_manifests[].manifest_xml, progressive_urls[].progressive_url,
 * hls_playlist_urls[].hls_playlist_url; length_in_second; video_available_captions_locales) and,
 * for reels, the creation story around it (the owner, the text).
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
  /** HLS playlists (the newer delivery fields), for when neither DASH nor a progressive file is given. */
  hls: string[];
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

const list = (value: unknown): Node[] => (Array.isArray(value) ? value.map(obj).filter((n): n is Node => Boolean(n)) : []);

/** The newer delivery result, when the node carries one. */
function deliveryResult(node: Node): Node | undefined {
  return obj(obj(node.videoDeliveryResponseFragment)?.videoDeliveryResponseResult);
}

function isPlayback(node: Node, id: string | undefined): boolean {
  if (id && node.id !== id && node.videoId !== id) return false;
  return Boolean(obj(node.videoDeliveryLegacyFields) ?? deliveryResult(node) ?? str(node.playable_url) ?? str(node.browser_native_sd_url));
}

/** The newer fields' progressive files, SD before HD (speech needs no more), and their first DASH manifest and HLS playlists. */
function newerDelivery(node: Node): { progressive: string[]; dashXml?: string; dashUrl?: string; hls: string[] } {
  const result = deliveryResult(node);
  if (!result) return { progressive: [], hls: [] };
  const rank = (entry: Node) => (/hd/i.test(str(obj(entry.metadata)?.quality) ?? '') ? 1 : 0);
  const progressive = list(result.progressive_urls)
    .sort((a, b) => rank(a) - rank(b))
    .map((entry) => str(entry.progressive_url))
    .filter((u): u is string => Boolean(u));
  const manifests = list(result.dash_manifests);
  const withXml = manifests.find((m) => str(m.manifest_xml));
  return {
    progressive,
    dashXml: str(withXml?.manifest_xml),
    dashUrl: str(withXml?.manifest_url) ?? str(list(result.dash_manifest_urls)[0]?.manifest_url),
    hls: list(result.hls_playlist_urls).map((entry) => str(entry.hls_playlist_url)).filter((u): u is string => Boolean(u)),
  };
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
  const newer = newerDelivery(node);
  const owner = obj(node.owner) ?? obj(context?.video_owner) ?? obj(story?.owner);
  const published = toNumber(node.publish_time) ?? toNumber(node.creation_time) ?? toNumber(story?.creation_time);
  const playableMs = toNumber(node.playable_duration_in_ms);
  return {
    id: videoId,
    durationSeconds: playableMs ? playableMs / 1000 : toNumber(node.length_in_second),
    width: toNumber(node.width),
    height: toNumber(node.height),
    permalink: str(node.permalink_url) ?? str(node.url),
    progressive: [str(delivery.browser_native_sd_url), str(delivery.playable_url), str(node.playable_url), ...newer.progressive, str(delivery.browser_native_hd_url), str(delivery.playable_url_quality_hd)].filter(
      (u, i, all): u is string => Boolean(u) && all.indexOf(u) === i,
    ),
    dashXml: str(delivery.dash_manifest_xml_string) ?? str(delivery.dash_manifest) ?? newer.dashXml,
    dashUrl: str(delivery.dash_manifest_url) ?? newer.dashUrl,
    hls: newer.hls,
    captions: captionTracks(node),
    owner: owner ? { id: str(owner.id), name: str(owner.name) } : undefined,
    title: str(node.name) ?? text(node.title),
    description: text(node.savable_description) ?? text(story?.message) ?? text(node.message) ?? text(context?.video_description),
    publishedAt: published ? new Date(published * 1000).toISOString() : undefined,
    thumbnail: str(obj(node.thumbnailImage)?.uri) ?? str(obj(obj(node.preferred_thumbnail)?.image)?.uri),
  };
}
