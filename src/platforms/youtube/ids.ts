/**
 * Every way a user names a YouTube video, channel or playlist, reduced to the id InnerTube wants.
 * A string that names none of them is a 400 that quotes it.
 */
import { GleanerError } from '../../errors.js';

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;
/** Playlist ids: user lists (PL), uploads (UU), mixes (RD), albums (OLAK5uy_), likes and others. */
const PLAYLIST_ID = /^(?:PL|UU|UL|UM|UP|FL|LL|RD|OL|PU|EL|CL|SP|TL|LP|WL)[A-Za-z0-9_-]{8,70}$|^OLAK5uy_[A-Za-z0-9_-]{33}$/;
const HANDLE = /^@[\p{L}\p{N}._-]{3,100}$/u;

export function isYoutubeHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return (
    host === 'youtu.be' ||
    host === 'youtube.com' ||
    host.endsWith('.youtube.com') ||
    host === 'youtube-nocookie.com' ||
    host.endsWith('.youtube-nocookie.com')
  );
}

export function isYoutubeUrl(url: URL): boolean {
  return (url.protocol === 'https:' || url.protocol === 'http:') && isYoutubeHost(url.hostname);
}

function asUrl(input: string): URL | undefined {
  const text = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : /^(?:[\w-]+\.)*(?:youtube\.com|youtu\.be|youtube-nocookie\.com)(?:[/?#]|$)/i.test(text) ? `https://${text}` : undefined;
  if (!withScheme || !URL.canParse(withScheme)) return undefined;
  const url = new URL(withScheme);
  return isYoutubeUrl(url) ? url : undefined;
}

/** The video id of a YouTube URL (watch, youtu.be, shorts, embed, live, v, e, music and m hosts), if it has one. */
export function videoIdFromUrl(url: URL): string | undefined {
  if (!isYoutubeUrl(url)) return undefined;
  const segments = url.pathname.split('/').filter(Boolean);
  let candidate: string | undefined;
  if (url.hostname.toLowerCase() === 'youtu.be') candidate = segments[0];
  else if (segments[0] === 'watch' || segments.length === 0) candidate = url.searchParams.get('v') ?? undefined;
  else if (['shorts', 'embed', 'live', 'v', 'e'].includes(segments[0])) candidate = segments[1];
  else if (segments[0] === 'attribution_link') {
    const inner = url.searchParams.get('u');
    if (inner) return videoIdFromUrl(new URL(inner, 'https://www.youtube.com'));
  }
  return candidate && VIDEO_ID.test(candidate) ? candidate : undefined;
}

/** A video id or any video URL form; anything else is a 400 naming the input. */
export function parseVideoRef(input: string): string {
  const text = input.trim();
  if (VIDEO_ID.test(text)) return text;
  const url = asUrl(text);
  const id = url && videoIdFromUrl(url);
  if (id) return id;
  throw new GleanerError(
    'INVALID_REQUEST',
    `"${input}" is not a YouTube video URL or id (expected an 11-character id, or a watch, youtu.be, shorts, embed or live URL).`,
  );
}

export type ChannelRef = { kind: 'id'; id: string } | { kind: 'url'; url: string };

/**
 * A channel id (UC...), an @handle, or a channel URL (/channel/UC..., /@handle, /c/name, /user/name).
 * Handles and legacy names are resolved later through InnerTube's navigation/resolve_url.
 */
export function parseChannelRef(input: string): ChannelRef {
  const text = input.trim();
  if (CHANNEL_ID.test(text)) return { kind: 'id', id: text };
  if (HANDLE.test(text)) return { kind: 'url', url: `https://www.youtube.com/${text}` };
  const url = asUrl(text);
  if (url) {
    const [first, second] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (first === 'channel' && second && CHANNEL_ID.test(second)) return { kind: 'id', id: second };
    if (first && HANDLE.test(first)) return { kind: 'url', url: `https://www.youtube.com/${first}` };
    if ((first === 'c' || first === 'user') && second && /^[\p{L}\p{N}._-]+$/u.test(second)) {
      return { kind: 'url', url: `https://www.youtube.com/${first}/${second}` };
    }
  }
  throw new GleanerError(
    'INVALID_REQUEST',
    `"${input}" is not a YouTube channel (expected a channel id starting with UC, an @handle, or a /channel/, /@, /c/ or /user/ URL).`,
  );
}

/** A playlist id or a URL carrying list= (playlist and watch URLs). */
export function parsePlaylistRef(input: string): string {
  const text = input.trim();
  if (PLAYLIST_ID.test(text)) return text;
  const list = asUrl(text)?.searchParams.get('list');
  if (list && PLAYLIST_ID.test(list)) return list;
  throw new GleanerError('INVALID_REQUEST', `"${input}" is not a YouTube playlist URL or id (expected an id such as PL..., or a URL with list=).`);
}
