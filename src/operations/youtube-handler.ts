/** YouTube in the cross-platform `metadata` and `transcript` operations: any URL naming a video. */
import type { UrlHandler } from './url-handlers.js';
import { isYoutubeUrl, videoIdFromUrl } from '../platforms/youtube/ids.js';
import { innertube } from '../platforms/youtube/client.js';
import { loadVideo, toMetadata, videoStreamUrl } from '../platforms/youtube/video.js';
import { onFreshExits, throughClients, youtubeClients } from '../platforms/youtube/clients.js';
import { transcriptFor } from './youtube.js';

export const youtubeUrlHandler: UrlHandler = {
  platform: 'youtube',
  // Channel and playlist pages are not videos: metadata reads them as web pages.
  matches: (url) => isYoutubeUrl(url) && videoIdFromUrl(url) !== undefined,
  async metadata(url, ctx) {
    const yt = await innertube(ctx.services.http);
    return toMetadata(await onFreshExits(ctx.services.http, () => loadVideo(yt, videoIdFromUrl(url)!)));
  },
  transcript: (url, options, ctx) => transcriptFor(videoIdFromUrl(url)!, options, ctx),
  async videoMedia(url, ctx) {
    const http = ctx.services.http;
    const { result } = await throughClients(http, await innertube(http), videoIdFromUrl(url)!, youtubeClients(ctx.services.config.GLEANER_YOUTUBE_CLIENTS), async ({ info }) =>
      videoStreamUrl(info),
    );
    return result ? { url: result, headers: { referer: 'https://www.youtube.com/' } } : undefined;
  },
};
