/** The parts of an HLS playlist (RFC 8216) the downloader needs, with URIs made absolute. */
export interface HlsMasterPlaylist {
  kind: 'master';
  /** Variants, lightest first. */
  variants: Array<{ uri: string; bandwidth: number }>;
  /** An audio-only rendition (EXT-X-MEDIA TYPE=AUDIO with a URI), when offered. */
  audioUri?: string;
}

export interface HlsMediaPlaylist {
  kind: 'media';
  segments: string[];
  initUri?: string;
  totalSeconds: number;
  ended: boolean;
  encrypted: boolean;
  byteRanges: boolean;
}

function attributes(line: string): Record<string, string> {
  const result: Record<string, string> = {};
  const body = line.slice(line.indexOf(':') + 1);
  for (const match of body.matchAll(/([A-Z0-9-]+)=("[^"]*"|[^,]*)/g)) result[match[1]] = match[2].replace(/^"|"$/g, '');
  return result;
}

export function parseHlsPlaylist(text: string, baseUrl: string): HlsMasterPlaylist | HlsMediaPlaylist {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const absolute = (uri: string) => new URL(uri, baseUrl).toString();
  if (lines.some((l) => l.startsWith('#EXT-X-STREAM-INF'))) {
    const variants: HlsMasterPlaylist['variants'] = [];
    let audioUri: string | undefined;
    lines.forEach((line, i) => {
      if (line.startsWith('#EXT-X-STREAM-INF')) {
        const uri = lines[i + 1];
        if (uri && !uri.startsWith('#')) variants.push({ uri: absolute(uri), bandwidth: Number(attributes(line).BANDWIDTH) || 0 });
      } else if (line.startsWith('#EXT-X-MEDIA:')) {
        const attrs = attributes(line);
        if (attrs.TYPE === 'AUDIO' && attrs.URI && !audioUri) audioUri = absolute(attrs.URI);
      }
    });
    variants.sort((a, b) => a.bandwidth - b.bandwidth);
    return { kind: 'master', variants, audioUri };
  }
  const playlist: HlsMediaPlaylist = { kind: 'media', segments: [], totalSeconds: 0, ended: false, encrypted: false, byteRanges: false };
  for (const line of lines) {
    if (line.startsWith('#EXTINF:')) playlist.totalSeconds += Number.parseFloat(line.slice(8)) || 0;
    else if (line.startsWith('#EXT-X-ENDLIST')) playlist.ended = true;
    else if (line.startsWith('#EXT-X-KEY:')) playlist.encrypted ||= attributes(line).METHOD !== 'NONE';
    else if (line.startsWith('#EXT-X-BYTERANGE')) playlist.byteRanges = true;
    else if (line.startsWith('#EXT-X-MAP:')) {
      const attrs = attributes(line);
      if (attrs.BYTERANGE) playlist.byteRanges = true;
      if (attrs.URI) playlist.initUri = absolute(attrs.URI);
    } else if (!line.startsWith('#')) playlist.segments.push(absolute(line));
  }
  return playlist;
}
