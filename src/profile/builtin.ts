/**
 * The built-in platform profile: the newest public evidence found for each entry, with its date and
 * source. Refreshing it is editing this data (or, without a release, GLEANER_PLATFORM_PROFILE; see
 * docs/platform-profile.md). The dates are those of the evidence, the profile's own date that of
 * its last review.
 */
import type { PlatformProfile } from './schema.js';

const YT_DLP = 'https://github.com/yt-dlp/yt-dlp/blob/81ecd58b13';
const YT_DLP_CLIENTS = { date: '2026-08-21', source: `${YT_DLP}/yt_dlp/extractor/youtube/_base.py (INNERTUBE_CLIENTS)` };

/**
 * Chrome 156: the stable Chromium of Debian 12's security updates (156.0.8078.108, November 2026),
 * after Chrome went to a two-week cadence with 153 (2026-09-08). yt-dlp's random_user_agent range
 * (145-151, 2026-08-04) was older by then. Every identity of Gleaner is this one (net/identity.ts
 * reads it too), so a refresh is this line and its brands.
 */
const CHROME = '156';
const CHROME_CHECKED = { date: '2026-11-26', source: 'https://packages.debian.org/bookworm-security/chromium (156.0.8078.108-1~deb12u1)' };
/**
 * The Sec-CH-UA brand list this Chrome major sends: Chromium seeds its GREASE brand, version and
 * order with the major (components/embedder_support/user_agent_utils.cc, GenerateBrandVersionList);
 * 156 gives "Not:A-Brand";v="8" first, as Debian's Chromium 156 reports in navigator.userAgentData.
 */
const CLIENT_HINTS_BRANDS = `"Not:A-Brand";v="8", "Chromium";v="${CHROME}", "Google Chrome";v="${CHROME}"`;
/** A top-level navigation typed into the address bar, as Chrome describes it (cobalt sends the same to Facebook). */
const NAVIGATION = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
  'accept-language': 'en-US,en;q=0.9',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'none',
  'sec-fetch-user': '?1',
  'upgrade-insecure-requests': '1',
};

export const BUILTIN_PROFILE: PlatformProfile = {
  date: '2026-11-26',
  youtube: {
    clients: {
      // No player script, direct stream URLs; refuses made-for-kids videos (playabilityStatus ERROR).
      VISIONOS: {
        clientName: 'VISIONOS',
        clientNameId: 101,
        clientVersion: '1.02',
        userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 15_7_3) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Safari/605.1.15',
        device: { make: 'Apple', model: 'RealityDevice17,1', osName: 'visionOS', osVersion: '26.5.23O471' },
        urlClientName: 'VISIONOS',
        poToken: { captions: false, streams: false },
        checked: YT_DLP_CLIENTS,
      },
      // yt-dlp moved to 21.26.364 on 2026-07-09; 19.44.38 answers 400 FAILED_PRECONDITION since 2026-08-18.
      ANDROID: {
        clientName: 'ANDROID',
        clientNameId: 3,
        clientVersion: '21.26.364',
        userAgent: 'com.google.android.youtube/21.26.364 (Linux; U; Android 11) gzip',
        device: { osName: 'Android', osVersion: '11', androidSdkVersion: 30 },
        urlClientName: 'ANDROID',
        poToken: { captions: false, streams: true },
        checked: YT_DLP_CLIENTS,
      },
      // YouTube's own name is IOS (youtubei.js writes iOS): the name sent and the c= of its URLs agree.
      IOS: {
        clientName: 'IOS',
        clientNameId: 5,
        clientVersion: '21.26.4',
        userAgent: 'com.google.ios.youtube/21.26.4 (iPhone16,2; U; CPU iOS 18_3_2 like Mac OS X;)',
        device: { make: 'Apple', model: 'iPhone16,2', osName: 'iPhone', osVersion: '18.3.2.22D82' },
        urlClientName: 'IOS',
        poToken: { captions: false, streams: true },
        checked: YT_DLP_CLIENTS,
      },
      // Caption URLs marked exp=xpe and formats without URLs (SABR) since 2025: last, and only with a PO token.
      WEB: {
        clientName: 'WEB',
        clientNameId: 1,
        clientVersion: '2.20260708.00.00',
        device: {},
        urlClientName: 'WEB',
        poToken: { captions: true, streams: true },
        checked: YT_DLP_CLIENTS,
      },
      // Not in the default orders; described so that an operator may list them (GLEANER_YOUTUBE_CLIENTS).
      TV: {
        clientName: 'TVHTML5',
        clientNameId: 7,
        clientVersion: '7.20260707.07.00',
        userAgent: 'Mozilla/5.0 (ChromiumStylePlatform) Cobalt/25.lts.30.1034943-gold (unlike Gecko), Unknown_TV_Unknown_0/Unknown (Unknown, Unknown)',
        device: {},
        urlClientName: 'TVHTML5',
        poToken: { captions: false, streams: false },
        checked: YT_DLP_CLIENTS,
      },
      // yt-dlp sends an iPad Safari 16.6 (2023) user agent that "previously" spared MWEB the PO token; it no
      // longer does (poToken.streams), so MWEB is the profile's mobile browser (client-profile.ts).
      MWEB: {
        clientName: 'MWEB',
        clientNameId: 2,
        clientVersion: '2.20260708.05.00',
        device: {},
        urlClientName: 'MWEB',
        poToken: { captions: false, streams: true },
        checked: YT_DLP_CLIENTS,
      },
      WEB_EMBEDDED: {
        clientName: 'WEB_EMBEDDED_PLAYER',
        clientNameId: 56,
        clientVersion: '2.20260708.00.00',
        device: {},
        urlClientName: 'WEB_EMBEDDED_PLAYER',
        poToken: { captions: false, streams: false },
        checked: YT_DLP_CLIENTS,
      },
      // Since 2026-08-17 every format of ANDROID_VR 1.65.10 answers 403 (yt-dlp dropped it from its defaults);
      // described so that an operator who lists it sends yt-dlp's identity, not youtubei.js's.
      ANDROID_VR: {
        clientName: 'ANDROID_VR',
        clientNameId: 28,
        clientVersion: '1.65.10',
        userAgent: 'com.google.android.apps.youtube.vr.oculus/1.65.10 (Linux; U; Android 12L; eureka-user Build/SQ3A.220605.009.A1) gzip',
        device: { make: 'Oculus', model: 'Quest 3', osName: 'Android', osVersion: '12L', androidSdkVersion: 32 },
        urlClientName: 'ANDROID_VR',
        poToken: { captions: false, streams: true },
        checked: YT_DLP_CLIENTS,
      },
      // YouTube Music's web client (youtubei.js's YTMUSIC).
      YTMUSIC: {
        clientName: 'WEB_REMIX',
        clientNameId: 67,
        clientVersion: '1.20260707.12.00',
        device: {},
        urlClientName: 'WEB_REMIX',
        poToken: { captions: false, streams: true },
        checked: YT_DLP_CLIENTS,
      },
      // Needs a signed-in session for every video (yt-dlp: REQUIRE_AUTH).
      WEB_CREATOR: {
        clientName: 'WEB_CREATOR',
        clientNameId: 62,
        clientVersion: '1.20260708.06.00',
        device: {},
        urlClientName: 'WEB_CREATOR',
        poToken: { captions: false, streams: true },
        checked: YT_DLP_CLIENTS,
      },
      TV_SIMPLY: {
        clientName: 'TVHTML5_SIMPLY',
        clientNameId: 75,
        clientVersion: '1.0',
        device: {},
        urlClientName: 'TVHTML5_SIMPLY',
        poToken: { captions: false, streams: true },
        checked: YT_DLP_CLIENTS,
      },
      // youtubei.js also knows YTKIDS, TV_EMBEDDED, YTSTUDIO_ANDROID and YTMUSIC_ANDROID, which yt-dlp no longer
      // describes: an order may name them, and they go with youtubei.js's identity and a warning at start.
    },
    order: {
      // yt-dlp's default is visionos then web (2026-08-18); ANDROID and IOS in between read what VISIONOS refuses.
      captions: ['VISIONOS', 'ANDROID', 'IOS', 'WEB'],
      audio: ['VISIONOS', 'ANDROID', 'IOS'],
      checked: { date: '2026-08-21', source: `${YT_DLP}/yt_dlp/extractor/youtube/_video.py (_DEFAULT_CLIENTS)` },
    },
  },
  browsers: {
    desktop: {
      userAgent: `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${CHROME}.0.0.0 Safari/537.36`,
      headers: { ...NAVIGATION, 'sec-ch-ua': CLIENT_HINTS_BRANDS, 'sec-ch-ua-mobile': '?0', 'sec-ch-ua-platform': '"Windows"' },
      checked: CHROME_CHECKED,
    },
    mobile: {
      userAgent: `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${CHROME}.0.0.0 Mobile Safari/537.36`,
      headers: { ...NAVIGATION, 'sec-ch-ua': CLIENT_HINTS_BRANDS, 'sec-ch-ua-mobile': '?1', 'sec-ch-ua-platform': '"Android"' },
      checked: CHROME_CHECKED,
    },
  },
  x: {
    bearerToken: 'AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA',
    tweetQueryId: '2ICDjqPd81tulZcYrtpTuQ',
    checked: { date: '2026-08-21', source: `${YT_DLP}/yt_dlp/extractor/twitter.py (_AUTH, TwitterIE._GRAPHQL_ENDPOINT)` },
  },
  instagram: {
    docId: '27130156389949648',
    appId: '936619743392459',
    asbdId: '359341',
    checked: { date: '2026-08-21', source: `${YT_DLP}/yt_dlp/extractor/instagram.py (_APP_IDS web, X-ASBD-ID, doc_id)` },
  },
  tiktok: {
    pageHeaders: {},
    mediaHeaders: { referer: 'https://www.tiktok.com/' },
    checked: { date: '2026-08-19', source: 'https://github.com/yt-dlp/yt-dlp/blob/2c0bf96092/yt_dlp/extractor/tiktok.py (webpage and CDN requests)' },
  },
};
