/**
 * Which of a TikTok video's renditions speech to text gets: every one that may carry sound,
 * lightest first, H.264 before H.265 (some H.265 renditions are video only), and never the
 * /media-video-hvc1/ ones, which are video only (yt-dlp marks them so). The pipeline tries them in
 * order, passing over one that answers 403/404 or turns out to have no audio track.
 */
export interface BitrateInfo {
  Bitrate?: number;
  CodecType?: string;
  GearName?: string;
  PlayAddr?: { UrlList?: string[] };
}

const isH265 = (r: BitrateInfo) => /h265|hvc1|bytevc1/i.test(`${r.CodecType ?? ''} ${r.GearName ?? ''}`);
const videoOnly = (url: string) => {
  try {
    return new URL(url).pathname.endsWith('/media-video-hvc1/');
  } catch {
    return true;
  }
};

export function speechRenditions(renditions: BitrateInfo[] | undefined, playAddr?: string): string[] {
  const ordered = [...(renditions ?? [])].sort((a, b) => Number(isH265(a)) - Number(isH265(b)) || (a.Bitrate ?? 0) - (b.Bitrate ?? 0));
  const urls = ordered.flatMap((r) => (r.PlayAddr?.UrlList ?? []).slice(0, 1));
  if (playAddr) urls.push(playAddr);
  return [...new Set(urls)].filter((u) => !videoOnly(u));
}
