/** Just enough of HLS (RFC 8216) to fetch a stream's audio: master and media playlists. */

export interface Playlist {
  /** Master playlist: the variant streams, with their bandwidth and audio group. */
  variants: Array<{ uri: string; bandwidth: number; audioGroup?: string }>;
  /** Master playlist: separate audio renditions that carry their own URI. */
  audio: Array<{ uri: string; groupId?: string; isDefault: boolean }>;
  /** Media playlist: segment URLs in order, and the initialisation section (fMP4). */
  segments: string[];
  map?: string;
  encrypted: boolean;
}

function attributes(line: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const match of line.slice(line.indexOf(':') + 1).matchAll(/([A-Z0-9-]+)=("([^"]*)"|[^,]*)/g)) {
    attrs[match[1]] = match[3] ?? match[2];
  }
  return attrs;
}

export function parsePlaylist(text: string, baseUrl: string): Playlist {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const result: Playlist = { variants: [], audio: [], segments: [], encrypted: false };
  const resolve = (uri: string) => new URL(uri, baseUrl).toString();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('#EXT-X-STREAM-INF:')) {
      const attrs = attributes(line);
      const uri = lines.slice(i + 1).find((l) => !l.startsWith('#'));
      if (uri) result.variants.push({ uri: resolve(uri), bandwidth: Number(attrs.BANDWIDTH) || Infinity, audioGroup: attrs.AUDIO });
    } else if (line.startsWith('#EXT-X-MEDIA:')) {
      const attrs = attributes(line);
      if (attrs.TYPE === 'AUDIO' && attrs.URI) result.audio.push({ uri: resolve(attrs.URI), groupId: attrs['GROUP-ID'], isDefault: attrs.DEFAULT === 'YES' });
    } else if (line.startsWith('#EXT-X-MAP:')) {
      const uri = attributes(line).URI;
      if (uri) result.map = resolve(uri);
    } else if (line.startsWith('#EXT-X-KEY:')) {
      const method = attributes(line).METHOD;
      if (method && method !== 'NONE') result.encrypted = true;
    } else if (line.startsWith('#EXTINF')) {
      const uri = lines.slice(i + 1).find((l) => !l.startsWith('#'));
      if (uri) result.segments.push(resolve(uri));
    }
  }
  return result;
}

/** The smallest way to the audio: a separate audio rendition if there is one, else the leanest variant. */
export function pickRendition(master: Playlist): string {
  const leanest = [...master.variants].sort((a, b) => a.bandwidth - b.bandwidth)[0];
  const group = master.audio.filter((a) => !leanest?.audioGroup || a.groupId === leanest.audioGroup);
  const audio = group.find((a) => a.isDefault) ?? group[0] ?? master.audio[0];
  return audio?.uri ?? leanest.uri;
}
