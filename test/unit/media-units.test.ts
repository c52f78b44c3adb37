/** Media and platform units: which source owns a URL, caption bodies, HLS playlists, track choice, language codes, counts. */
import { describe, expect, it } from 'vitest';
import { sourceFor } from '../../src/sources/registry.js';
import { chooseTrack } from '../../src/sources/social.js';
import { parseCaptions } from '../../src/platforms/captions.js';
import { parseHlsPlaylist } from '../../src/media/hls.js';
import { languageCode } from '../../src/ai/language.js';
import { parseCount } from '../../src/platforms/browser.js';
import { aiTranscriptCredits, durationMinutes } from '../../src/media/credits.js';
import type { CaptionTrack } from '../../src/platforms/post.js';

describe('URL routing: each platform URL reaches its source', () => {
  const cases: Array<[string, string | undefined]> = [
    ['https://www.tiktok.com/@illojuan/video/7571863205253778710', 'tiktok'],
    ['https://www.tiktok.com/@illojuan/video/7571863205253778710?is_from_webapp=1&sender_device=pc', 'tiktok'],
    ['https://m.tiktok.com/v/7571863205253778710.html', 'tiktok'],
    ['https://www.tiktok.com/embed/v2/7571863205253778710', 'tiktok'],
    ['https://vm.tiktok.com/ZMhvqjqjq/', 'tiktok'],
    ['https://www.tiktok.com/t/ZTRabc123/', 'tiktok'],
    ['https://www.instagram.com/p/CPQjO5RIIO9/', 'instagram'],
    ['https://instagram.com/reel/CN2VQ1yI_MA/?igsh=abc', 'instagram'],
    ['https://www.instagram.com/reels/CN2VQ1yI_MA/', 'instagram'],
    ['https://www.instagram.com/tv/CN2VQ1yI_MA', 'instagram'],
    ['https://www.instagram.com/jaimelorentelo/p/CPQjO5RIIO9/', 'instagram'],
    ['https://x.com/DivineDropbear/status/1841206275088290279', 'x'],
    ['https://twitter.com/jack/status/20', 'x'],
    ['https://mobile.twitter.com/jack/status/20?s=20', 'x'],
    ['https://x.com/i/web/status/1841206275088290279', 'x'],
    ['https://www.facebook.com/Nintendo/videos/286348296528911/', 'facebook'],
    ['https://www.facebook.com/Nintendo/videos/which-enemy-from-a-nintendo-game/387081299304444/', 'facebook'],
    ['https://www.facebook.com/watch/?v=286348296528911', 'facebook'],
    ['https://m.facebook.com/watch?v=286348296528911', 'facebook'],
    ['https://www.facebook.com/reel/1234567890', 'facebook'],
    ['https://fb.watch/abcDEF123/', 'facebook'],
    ['https://www.facebook.com/share/v/1AbCdEf/', 'facebook'],
    ['https://cdn.example.com/media/talk.mp4', 'video'],
    ['https://cdn.example.com/live/master.m3u8?token=1', 'video'],
    ['https://cdn.example.com/a.WAV', 'video'],
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'youtube'],
    ['https://www.tiktok.com/@illojuan', undefined],
    ['https://www.instagram.com/jaimelorentelo/', undefined],
    ['https://x.com/jack', undefined],
    ['https://www.facebook.com/Nintendo/', undefined],
    ['https://example.com/article', undefined],
    ['https://example.com/video-about-mp4s', undefined],
  ];
  for (const [url, platform] of cases) {
    it(`${url} -> ${platform ?? 'no source (a web page)'}`, () => {
      expect(sourceFor(new URL(url))?.platform).toBe(platform);
    });
  }
});

describe('caption bodies', () => {
  it('WebVTT with a header, a note, cue ids, cue settings, tags and entities', () => {
    const vtt = 'WEBVTT Kind: captions\nLanguage: es\n\nNOTE written by hand\n\ncue-1\n00:00:01.000 --> 00:00:02.500 align:start position:10%\n<c.yellow>Hola</c> &amp; adiós\n\n00:01:02.250 --> 00:01:04.000\nsegunda\nlínea\n';
    expect(parseCaptions(vtt, 'es')).toEqual([
      { text: 'Hola & adiós', offset: 1000, duration: 1500, lang: 'es' },
      { text: 'segunda línea', offset: 62250, duration: 1750, lang: 'es' },
    ]);
  });

  it('SubRip with CRLF line ends and hour offsets', () => {
    const srt = '1\r\n01:00:00,500 --> 01:00:04,000\r\nWelcome\r\n\r\n2\r\n01:00:04,000 --> 01:00:05,000\r\n<i>back</i>\r\n';
    expect(parseCaptions(srt, 'en')).toEqual([
      { text: 'Welcome', offset: 3_600_500, duration: 3500, lang: 'en' },
      { text: 'back', offset: 3_604_000, duration: 1000, lang: 'en' },
    ]);
  });
});

describe('caption track choice', () => {
  const tracks: CaptionTrack[] = [
    { lang: 'en-US', url: 'mt', format: 'webvtt', source: 'translation' },
    { lang: 'es-ES', url: 'asr', format: 'webvtt', source: 'asr', original: true },
  ];
  it('the spoken language by default, the asked one when present (by base language too)', () => {
    expect(chooseTrack(tracks, undefined)?.url).toBe('asr');
    expect(chooseTrack(tracks, 'en')?.url).toBe('mt');
    expect(chooseTrack(tracks, 'es-MX')?.url).toBe('asr');
  });
  it('an original track before a translation in the same language', () => {
    const both: CaptionTrack[] = [{ ...tracks[0], lang: 'es-ES' }, tracks[1]];
    expect(chooseTrack(both, 'es')?.url).toBe('asr');
  });
});

describe('HLS playlists', () => {
  it('a master playlist: variants lightest first, and its audio rendition', () => {
    const master = parseHlsPlaylist(
      '#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",DEFAULT=YES,URI="audio/en.m3u8"\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="a"\nhi.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=300000,AUDIO="a"\n/abs/lo.m3u8\n',
      'https://cdn.example.com/v/master.m3u8',
    );
    expect(master).toEqual({
      kind: 'master',
      variants: [
        { uri: 'https://cdn.example.com/abs/lo.m3u8', bandwidth: 300000 },
        { uri: 'https://cdn.example.com/v/hi.m3u8', bandwidth: 2000000 },
      ],
      audioUri: 'https://cdn.example.com/v/audio/en.m3u8',
    });
  });

  it('a media playlist: init section, segments, length, and encryption flagged', () => {
    const media = parseHlsPlaylist('#EXTM3U\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:6.0,\ns1.m4s\n#EXTINF:4.5,\ns2.m4s\n#EXT-X-ENDLIST\n', 'https://cdn.example.com/a/index.m3u8');
    expect(media).toMatchObject({ kind: 'media', initUri: 'https://cdn.example.com/a/init.mp4', segments: ['https://cdn.example.com/a/s1.m4s', 'https://cdn.example.com/a/s2.m4s'], totalSeconds: 10.5, ended: true, encrypted: false });
    expect(parseHlsPlaylist('#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="k"\n#EXTINF:6,\ns.ts\n', 'https://x.test/')).toMatchObject({ encrypted: true, ended: false });
  });
});

describe('codes, counts and credits', () => {
  it('language names and codes as speech-to-text providers write them', () => {
    expect(languageCode('english')).toBe('en');
    expect(languageCode('Spanish')).toBe('es');
    expect(languageCode('castilian')).toBe('es');
    expect(languageCode('pt_BR')).toBe('pt-BR');
    expect(languageCode('klingon')).toBeUndefined();
  });

  it('counts as the platforms print them', () => {
    expect(parseCount('990K')).toBe(990_000);
    expect(parseCount('1.2M')).toBe(1_200_000);
    expect(parseCount('8,873')).toBe(8873);
    expect(parseCount('many')).toBeUndefined();
  });

  it('AI credits: 2 per started minute of the length the reply shows', () => {
    expect(aiTranscriptCredits(durationMinutes(1500.19))).toBe(50);
    expect(aiTranscriptCredits(durationMinutes(64))).toBe(4);
    expect(aiTranscriptCredits(durationMinutes(5))).toBe(2);
  });
});
