/** Routing of platform URLs, caption and playlist parsing, language codes, and the STT provider's reply handling. */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { handlerFor } from '../src/operations/url-handlers.js';
import { pickCaption } from '../src/operations/media-transcripts.js';
import { parseSubtitles } from '../src/platforms/subtitles.js';
import { languageCode, sameLanguage } from '../src/ai/languages.js';
import { parsePlaylist, pickRendition } from '../src/media/hls.js';
import { compactNumber, cookieHeader } from '../src/platforms/post.js';
import { isoDuration } from '../src/platforms/facebook/facebook.js';
import { aiTranscriptCredits, minutesOf } from '../src/media/pipeline.js';
import { openAiSpeechToText } from '../src/ai/stt.js';
import { HttpClient } from '../src/net/http.js';

describe('URL routing: each platform URL reaches its handler', () => {
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
    it(`${url} -> ${platform ?? 'no handler (web page)'}`, () => {
      expect(handlerFor(new URL(url))?.platform).toBe(platform);
    });
  }
});

describe('captions', () => {
  it('reads WebVTT with a header, notes, cue ids, settings and tags', () => {
    const vtt = 'WEBVTT Kind: captions\nLanguage: es\n\nNOTE made by hand\n\ncue-1\n00:00:01.000 --> 00:00:02.500 align:start position:10%\n<c.yellow>Hola</c> &amp; adiós\n\n00:01:02.250 --> 00:01:04.000\nsegunda\nlínea\n';
    expect(parseSubtitles(vtt)).toEqual([
      { text: 'Hola & adiós', offset: 1000, duration: 1500 },
      { text: 'segunda línea', offset: 62250, duration: 1750 },
    ]);
  });

  it('reads SubRip with CRLF line ends and hour offsets', () => {
    const srt = '1\r\n01:00:00,500 --> 01:00:04,000\r\nWelcome\r\n\r\n2\r\n01:00:04,000 --> 01:00:05,000\r\n<i>back</i>\r\n';
    expect(parseSubtitles(srt)).toEqual([
      { text: 'Welcome', offset: 3_600_500, duration: 3500 },
      { text: 'back', offset: 3_604_000, duration: 1000 },
    ]);
  });

  it('picks the spoken-language track by default and never a translation alone', () => {
    const tracks = [
      { lang: 'en-US', url: 'mt', kind: 'translation' as const },
      { lang: 'es-ES', url: 'asr', kind: 'asr' as const },
    ];
    expect(pickCaption(tracks, undefined)?.url).toBe('asr');
    expect(pickCaption(tracks, 'en')?.url).toBe('mt');
    expect(pickCaption(tracks, 'es')?.url).toBe('asr');
    expect(pickCaption(tracks, 'fr')).toBeUndefined();
    expect(pickCaption([tracks[0]], undefined)).toBeUndefined();
  });
});

describe('codes and numbers', () => {
  it('language names and ISO 639-2 codes become ISO 639-1', () => {
    expect(languageCode('english')).toBe('en');
    expect(languageCode('Spanish')).toBe('es');
    expect(languageCode('eng-US')).toBe('en-US');
    expect(languageCode('spa-ES')).toBe('es-ES');
    expect(languageCode('pt-BR')).toBe('pt-BR');
    expect(languageCode('klingon')).toBeUndefined();
    expect(sameLanguage('en', 'en-US')).toBe(true);
    expect(sameLanguage('en', 'es-ES')).toBe(false);
  });

  it('compact counts, Facebook durations and cookies', () => {
    expect(compactNumber('990K')).toBe(990_000);
    expect(compactNumber('1.2M')).toBe(1_200_000);
    expect(compactNumber('8,873')).toBe(8873);
    expect(isoDuration('T3M58S')).toBe(238);
    expect(isoDuration('PT1H0M2.5S')).toBe(3602.5);
    expect(isoDuration('soon')).toBeUndefined();
    expect(cookieHeader('a=1; Path=/; Expires=Wed, 01 Jan 2031 00:00:00 GMT, b=2; HttpOnly')).toBe('a=1; b=2');
  });

  it('AI credits: 2 per started minute of the rounded length', () => {
    expect(aiTranscriptCredits(1500.19)).toBe(50);
    expect(aiTranscriptCredits(64)).toBe(4);
    expect(aiTranscriptCredits(5)).toBe(2);
    expect(aiTranscriptCredits(60.2)).toBe(2);
    expect(minutesOf(64)).toBe(1.07);
  });
});

describe('HLS playlists', () => {
  it('a master playlist leads to its default audio rendition, else to the leanest variant', () => {
    const master = parsePlaylist(
      '#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",DEFAULT=YES,URI="audio/en.m3u8"\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="a"\nhi.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=300000,AUDIO="a"\nlo.m3u8\n',
      'https://cdn.example.com/v/master.m3u8',
    );
    expect(pickRendition(master)).toBe('https://cdn.example.com/v/audio/en.m3u8');
    const muxed = parsePlaylist('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\nhi.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=300000\n/abs/lo.m3u8\n', 'https://cdn.example.com/v/master.m3u8');
    expect(pickRendition(muxed)).toBe('https://cdn.example.com/abs/lo.m3u8');
  });

  it('a media playlist lists its init section and segments, and flags encryption', () => {
    const media = parsePlaylist('#EXTM3U\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:6.0,\ns1.m4s\n#EXTINF:6.0,\ns2.m4s\n#EXT-X-ENDLIST\n', 'https://cdn.example.com/a/index.m3u8');
    expect(media).toMatchObject({ map: 'https://cdn.example.com/a/init.mp4', segments: ['https://cdn.example.com/a/s1.m4s', 'https://cdn.example.com/a/s2.m4s'], encrypted: false });
    expect(parsePlaylist('#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="k"\n#EXTINF:6,\ns.ts\n', 'https://x.test/').encrypted).toBe(true);
  });
});

describe('OpenAI-compatible speech to text', () => {
  async function withServer(reply: (body: string) => { status: number; body: unknown }, test: (url: string) => Promise<void>) {
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const answer = reply(body);
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await test(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`);
    } finally {
      server.close();
    }
  }
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-stt-unit-')), 'a.mp3');
  fs.writeFileSync(file, Buffer.alloc(1000, 1));
  const client = new HttpClient({ overrides: [] });

  it('a server that answers text only gives one segment spanning what it heard', async () => {
    await withServer(
      () => ({ status: 200, body: { text: ' Hello there. ', duration: 12.5, language: 'de' } }),
      async (url) => {
        const result = await openAiSpeechToText(client, { baseUrl: url, model: 'm' }).transcribe({ path: file, mimeType: 'audio/mpeg' }, { lang: 'pt-BR' });
        expect(result).toEqual({ language: 'de', duration: 12.5, segments: [{ start: 0, end: 12.5, text: 'Hello there.' }] });
      },
    );
  });

  it('sends the language as ISO 639-1 and reports an error reply with its message', async () => {
    let sent = '';
    await withServer(
      (body) => {
        sent = body;
        return { status: 401, body: { error: { message: 'Incorrect API key provided' } } };
      },
      async (url) => {
        await expect(openAiSpeechToText(client, { baseUrl: url, model: 'm', apiKey: 'k' }).transcribe({ path: file, mimeType: 'audio/mpeg' }, { lang: 'pt-BR' })).rejects.toMatchObject({
          code: 'UPSTREAM_ERROR',
          message: expect.stringContaining('answered 401: Incorrect API key provided'),
        });
      },
    );
    expect(sent).toMatch(/name="language"\r\n\r\npt\r\n/);
  });
});
