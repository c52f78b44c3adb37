/**
 * The pages TikTok serves in place of a video to a browser identity it turns away, as fixtures
 * (test/fixtures/tiktok/SOURCE.md, "refusals/", says where each comes from), and the recorded real
 * page they stand in for.
 */
import { fixture } from './paths.js';

const REHYDRATION = /<script[^>]+id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>[\s\S]*?<\/script>/;

/** The recorded real video page (December 2025), with its video id replaced by `id`. */
export function tiktokPage(id: string): string {
  return fixture('tiktok/video_7571863205253778710.html').replaceAll('7571863205253778710', id);
}

/** The 200 "Site Under Maintenance" page (yt-dlp#17403, #17604). */
export function tiktokMaintenancePage(): string {
  return fixture('tiktok/refusals/site-under-maintenance.html');
}

/** The app's shell without the rehydration data and without a challenge (yt-dlp#17393): the recorded page with that script removed. */
export function tiktokShell(): string {
  const page = fixture('tiktok/video_7571863205253778710.html');
  if (!REHYDRATION.test(page)) throw new Error('the recorded TikTok page no longer has its rehydration script');
  return page.replace(REHYDRATION, '');
}

/** The recorded page with its rehydration data kept but the video's scope taken out: the app's data without the video (a changed page). */
export function tiktokWithoutVideoScope(): string {
  const page = fixture('tiktok/video_7571863205253778710.html');
  return page.replace(/(<script[^>]+id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>)([\s\S]*?)(<\/script>)/, (_m, open: string, json: string, close: string) => {
    const data = JSON.parse(json) as { __DEFAULT_SCOPE__: Record<string, unknown> };
    delete data.__DEFAULT_SCOPE__['webapp.video-detail'];
    return `${open}${JSON.stringify(data)}${close}`;
  });
}
