/**
 * The YouTube speech-to-text fallback: a recorded video without captions (dsMFmonKDD4, whose
 * recorded player reply lists plain googlevideo.com audio URLs) is transcribed through the media
 * pipeline from generated audio of its recorded length, served where those URLs point.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { generateMedia, startMediaServer, startSttServer, type GeneratedMedia, type MediaServer, type SttServer } from '../support/media.js';

let replay: YoutubeReplay;
let media: GeneratedMedia;
let audio: MediaServer;
let stt: SttServer;
let server: TestServer;
let bare: TestServer;

beforeAll(async () => {
  media = generateMedia();
  [replay, audio, stt] = await Promise.all([startYoutubeReplay(), startMediaServer(), startSttServer()]);
  // The recorded player reply says lengthSeconds 288; every audio format's URL is /videoplayback on googlevideo.com.
  audio.serve('/videoplayback', media.make('youtube.m4a', 288), 'audio/mp4');
  const overrides = `youtube.com=${replay.origin},googleapis.com=${replay.origin},googlevideo.com=${audio.origin}`;
  server = await startTestServer({ env: { GLEANER_STT_URL: stt.url, GLEANER_STT_CHUNK_SECONDS: '60', GLEANER_UPSTREAM_OVERRIDES: overrides } });
  bare = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: overrides } });
}, 300_000);

afterAll(async () => {
  await Promise.all([server?.close(), bare?.close()]);
  await Promise.all([replay?.close(), audio?.close(), stt?.close()]);
  if (media) fs.rmSync(media.dir, { recursive: true, force: true });
});

describe('YouTube without captions', () => {
  it('is transcribed from its smallest audio stream and costs 2 credits per started minute', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const reply = await server.request('GET', '/v1/youtube/transcript?video_id=dsMFmonKDD4', { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, lang: 'en', videoId: 'dsMFmonKDD4', platform: 'youtube', cached: false });
    expect(reply.body.durationMinutes).toBeCloseTo(4.8, 1);
    expect(reply.headers.get('x-credits-used')).toBe('10');
    expect(stt.calls).toHaveLength(5);
    const offsets = (reply.body.content as Array<{ offset: number }>).map((s) => s.offset);
    for (let i = 1; i < offsets.length; i++) expect(offsets[i]).toBeGreaterThan(offsets[i - 1]);
    expect(offsets.some((o) => Math.abs(o - 240_000) < 150)).toBe(true);
    // The universal transcript operation reaches the same path (served from the store now).
    const again = await server.request('GET', `/v1/transcript?url=${encodeURIComponent('https://www.youtube.com/watch?v=dsMFmonKDD4')}`, { apiKey: key });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ aiGenerated: true, cached: true });
    // ffmpeg and the transcription server share the machine: a busy one needs more than the default 30 s.
  }, 120_000);

  it('stays TRANSCRIPT_UNAVAILABLE, free, when no speech-to-text provider is configured', async () => {
    const key = await bare.createKey('Free', { credits: 10 });
    const reply = await bare.request('GET', '/v1/youtube/transcript?video_id=dsMFmonKDD4', { apiKey: key });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('TRANSCRIPT_UNAVAILABLE');
    expect((await bare.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(10);
  });
});
