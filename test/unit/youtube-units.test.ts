/** YouTube adapter pieces: id and URL forms, caption body formats, track choice, search params. */
import { describe, expect, it } from 'vitest';
import { parseChannelRef, parsePlaylistRef, parseVideoRef } from '../../src/platforms/youtube/ids.js';
import { parseCaptionBody, pickTrack, trackBodyUrl, type CaptionTrack } from '../../src/platforms/youtube/captions.js';
import { approximateDate, searchParams } from '../../src/platforms/youtube/search.js';
import { parseClock, parseCount } from '../../src/platforms/youtube/items.js';
import { audioStreamUrl, parseDisplayDate } from '../../src/platforms/youtube/video.js';
import { youtubeClients } from '../../src/platforms/youtube/clients.js';
import { needsPoToken, withPoToken } from '../../src/platforms/youtube/potoken.js';

describe('ids', () => {
  it('reads every video URL form and rejects the rest, naming them', () => {
    for (const form of [
      'dQw4w9WgXcQ',
      'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=1s',
      'http://youtube.com/watch?app=desktop&v=dQw4w9WgXcQ',
      'https://youtu.be/dQw4w9WgXcQ?si=x',
      'https://www.youtube.com/shorts/dQw4w9WgXcQ',
      'https://www.youtube.com/embed/dQw4w9WgXcQ',
      'https://www.youtube.com/live/dQw4w9WgXcQ',
      'https://www.youtube.com/v/dQw4w9WgXcQ',
      'https://m.youtube.com/watch?v=dQw4w9WgXcQ',
      'https://music.youtube.com/watch?v=dQw4w9WgXcQ&list=RDAMVM',
      'www.youtube.com/watch?v=dQw4w9WgXcQ',
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
    ]) {
      expect(parseVideoRef(form), form).toBe('dQw4w9WgXcQ');
    }
    for (const bad of ['https://vimeo.com/1', 'https://www.youtube.com/watch?v=short', 'https://evil.com/watch?v=dQw4w9WgXcQ', 'https://www.youtube.com/channel/UCTwECeGqMZee77BjdoYtI2Q', '']) {
      expect(() => parseVideoRef(bad), bad).toThrow(/not a YouTube video/);
    }
  });

  it('reads channel ids, handles and the /channel/, /@, /c/, /user/ URLs', () => {
    expect(parseChannelRef('UCTwECeGqMZee77BjdoYtI2Q')).toEqual({ kind: 'id', id: 'UCTwECeGqMZee77BjdoYtI2Q' });
    expect(parseChannelRef('https://www.youtube.com/channel/UCTwECeGqMZee77BjdoYtI2Q/videos')).toEqual({ kind: 'id', id: 'UCTwECeGqMZee77BjdoYtI2Q' });
    expect(parseChannelRef('@Radiohead')).toEqual({ kind: 'url', url: 'https://www.youtube.com/@Radiohead' });
    expect(parseChannelRef('https://m.youtube.com/@Radiohead/shorts')).toEqual({ kind: 'url', url: 'https://www.youtube.com/@Radiohead' });
    expect(parseChannelRef('youtube.com/c/JeffGeerling')).toEqual({ kind: 'url', url: 'https://www.youtube.com/c/JeffGeerling' });
    expect(parseChannelRef('https://www.youtube.com/user/Vsauce')).toEqual({ kind: 'url', url: 'https://www.youtube.com/user/Vsauce' });
    expect(() => parseChannelRef('Radiohead')).toThrow(/"Radiohead" is not a YouTube channel/);
    expect(() => parseChannelRef('https://www.youtube.com/watch?v=dQw4w9WgXcQ')).toThrow(/not a YouTube channel/);
  });

  it('reads playlist ids and list= URLs', () => {
    expect(parsePlaylistRef('PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr')).toBe('PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr');
    expect(parsePlaylistRef('https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr')).toBe('PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr');
    expect(parsePlaylistRef('https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=UUTwECeGqMZee77BjdoYtI2Q')).toBe('UUTwECeGqMZee77BjdoYtI2Q');
    expect(() => parsePlaylistRef('hello')).toThrow(/"hello" is not a YouTube playlist/);
  });
});

describe('captions', () => {
  const track = (languageCode: string, kind?: string): CaptionTrack => ({
    languageCode,
    name: languageCode,
    kind,
    baseUrl: `https://www.youtube.com/api/timedtext?v=x&lang=${languageCode}&fmt=srv3`,
    isTranslatable: true,
  });

  it('prefers a manual track, then the base language, else the default track', () => {
    const tracks = [track('en', 'asr'), track('de'), track('en'), track('pt-BR')];
    expect(pickTrack(tracks, 'en')?.track).toBe(tracks[2]);
    expect(pickTrack(tracks, 'pt')?.track).toBe(tracks[3]);
    expect(pickTrack(tracks, 'fi', 1)).toEqual({ track: tracks[1], matched: false });
    // A default pointing at the automatic English track gives the manual English one.
    expect(pickTrack(tracks, undefined, 0)?.track).toBe(tracks[2]);
    expect(pickTrack([], 'en')).toBeUndefined();
  });

  it('asks for the legacy XML body, translated with tlang', () => {
    const url = new URL(trackBodyUrl(track('en'), 'fr'));
    expect(url.searchParams.get('fmt')).toBeNull();
    expect(url.searchParams.get('tlang')).toBe('fr');
  });

  // The bodies below are built by this test in YouTube's srv3 and json3 formats with its own
  // values: the recordings hold only one legacy-XML caption body (transcript.xml.static).
  it('reads srv3 bodies (timing in ms, <s> word segments, entities)', () => {
    const srv3 = '<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>' +
      '<p t="1200" d="2500" w="1"><s ac="0">Hello</s><s t="400" ac="0"> world</s></p>' +
      '<p t="3700" d="1000" a="1"></p>' +
      '<p t="4700" d="1800">Tom &amp; Jerry&#39;s</p></body></timedtext>';
    expect(parseCaptionBody(srv3)).toEqual([
      { text: 'Hello world', startMs: 1200, durationMs: 2500 },
      { text: "Tom & Jerry's", startMs: 4700, durationMs: 1800 },
    ]);
  });

  it('reads json3 bodies', () => {
    const json3 = JSON.stringify({
      wireMagic: 'pb3',
      events: [
        { tStartMs: 0, dDurationMs: 5000, id: 1, wpWinPosId: 1 },
        { tStartMs: 120, dDurationMs: 2400, wWinId: 1, segs: [{ utf8: 'first' }, { utf8: ' line', tOffsetMs: 300 }] },
        { tStartMs: 2520, wWinId: 1, aAppend: 1, segs: [{ utf8: '\n' }] },
        { tStartMs: 2600, dDurationMs: 1500, segs: [{ utf8: 'second' }] },
      ],
    });
    expect(parseCaptionBody(json3)).toEqual([
      { text: 'first line', startMs: 120, durationMs: 2400 },
      { text: 'second', startMs: 2600, durationMs: 1500 },
    ]);
  });

  it('reads legacy timedtext with escaped markup and double-escaped entities', () => {
    const xml = '<transcript><text start="1.5" dur="2">it&amp;#39;s &lt;i>fine&lt;/i></text><text start="4" dur="1"></text></transcript>';
    expect(parseCaptionBody(xml)).toEqual([{ text: "it's fine", startMs: 1500, durationMs: 2000 }]);
  });
});

describe('search pieces', () => {
  it('encodes the SearchFilter protobuf', () => {
    const base = { type: 'all', sortBy: 'relevance', definition: 'any', caption: 'any' } as const;
    expect(decodeURIComponent(searchParams(base))).toBe('EgA=');
    expect(decodeURIComponent(searchParams({ ...base, type: 'video' }))).toBe('EgIQAQ==');
    const all = Buffer.from(decodeURIComponent(searchParams({ ...base, type: 'video', sortBy: 'viewCount', duration: 'long', definition: 'high', caption: 'closedCaption' })), 'base64');
    expect([...all]).toEqual([0x08, 3, 0x12, 8, 0x10, 1, 0x18, 2, 0x20, 1, 0x28, 1]);
    const now = new Date('2026-01-20T00:00:00Z');
    const week = Buffer.from(decodeURIComponent(searchParams({ ...base, publishedAfter: '2026-01-15T00:00:00Z' }, now)), 'base64');
    expect([...week]).toEqual([0x12, 2, 0x08, 3]);
  });

  it('reads counts, clocks and dates as YouTube shows them', () => {
    expect(parseCount('1,862 views')).toBe(1862);
    expect(parseCount('1.8K views')).toBe(1800);
    expect(parseCount('2.9 million views')).toBe(2_900_000);
    expect(parseCount('497M subscribers')).toBe(497_000_000);
    expect(parseCount('No views')).toBe(0);
    expect(parseClock('1:02:03')).toBe(3723);
    expect(parseClock('live')).toBeNull();
    expect(parseDisplayDate('18 Nov 2020')).toBe('2020-11-18');
    expect(parseDisplayDate('Premiered Nov 18, 2020')).toBe('2020-11-18');
    const now = new Date('2026-01-20T00:00:00Z');
    expect(approximateDate('Streamed 2 weeks ago', now)?.toISOString()).toBe('2026-01-06T00:00:00.000Z');
    expect(approximateDate(null, now)).toBeNull();
  });
});

describe('InnerTube clients, PO tokens, audio', () => {
  it('GLEANER_YOUTUBE_CLIENTS: default order, any case, unknown names refused by name', () => {
    expect(youtubeClients(undefined)).toEqual(['VISIONOS', 'ANDROID', 'IOS', 'WEB']);
    expect(youtubeClients(' ios, web ')).toEqual(['IOS', 'WEB']);
    expect(() => youtubeClients('VISIONOS,PALM_PILOT')).toThrow(/PALM_PILOT/);
  });

  it('a caption URL wants a PO token when exp carries xpe or xpv and no pot is on it; the token goes on with potc and c', () => {
    const base = 'https://www.youtube.com/api/timedtext?v=GJLlxj_dtq8&caps=asr&lang=en';
    expect(needsPoToken(base)).toBe(false);
    expect(needsPoToken(`${base}&exp=xpe`)).toBe(true);
    expect(needsPoToken(`${base}&exp=xpv`)).toBe(true);
    expect(needsPoToken(`${base}&exp=xpe&pot=abc`)).toBe(false);
    const signed = new URL(withPoToken(`${base}&exp=xpe`, 'tok', 'WEB'));
    expect(Object.fromEntries(['pot', 'potc', 'c', 'v', 'exp'].map((k) => [k, signed.searchParams.get(k)]))).toEqual({ pot: 'tok', potc: '1', c: 'WEB', v: 'GJLlxj_dtq8', exp: 'xpe' });
    expect(new URL(withPoToken(`${base}&c=ANDROID`, 'tok', 'WEB')).searchParams.get('c')).toBe('ANDROID');
  });

  it('audio for speech to text: the smallest audio-only format with a URL, of the original track where the video is dubbed', () => {
    // The fields of youtubei.js's Format that matter here (a reply with dubbed tracks, like kX3nB4PpJko's).
    const format = (bitrate: number, extra: Record<string, unknown>) => ({ has_audio: true, has_video: false, bitrate, url: `https://rr1.googlevideo.com/videoplayback?b=${bitrate}`, ...extra });
    const info = {
      streaming_data: {
        formats: [{ has_audio: true, has_video: true, bitrate: 10, url: 'https://rr1.googlevideo.com/muxed' }],
        adaptive_formats: [
          format(50_730, { audio_track: { audio_is_default: false, display_name: 'Arabic' } }),
          format(50_775, { audio_track: { audio_is_default: true, display_name: 'English original' } }),
          format(131_240, { audio_track: { audio_is_default: true, display_name: 'English original' } }),
          { has_audio: true, has_video: false, bitrate: 1 },
        ],
      },
    } as unknown as Parameters<typeof audioStreamUrl>[0];
    expect(audioStreamUrl(info)).toBe('https://rr1.googlevideo.com/videoplayback?b=50775');
    const web2026 = { streaming_data: { formats: [], adaptive_formats: [{ has_audio: true, has_video: false, bitrate: 1 }] } } as unknown as Parameters<typeof audioStreamUrl>[0];
    expect(audioStreamUrl(web2026)).toBeUndefined();
  });
});
