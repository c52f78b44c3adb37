/**
 * Every call of the Supadata SDK (@supadata/js 1.4.0, unmodified) answered, and the spec's own reply
 * on the spec's paths: mode=generate, transcript jobs asked for with `Prefer: respond-async` and read
 * with transcript.getJobStatus, translate's chunkSize, search's type=movie and every feature, the
 * SDK's message for an error, and the video batch (a job at /v1/youtube, the results at /v1/vidsite).
 * YouTube from the recorded replies, media from generated files, speech to text from a local
 * OpenAI-compatible server.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Supadata } from '@supadata/js';
import { startTestServer, type TestServer } from '../support/server.js';
import { replyChecker } from '../support/contract.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { generateMedia, startMediaServer, startSttServer, type MediaServer, type SttServer } from '../support/media.js';

const MEDIA = 'https://media.example';
/** NewPipe's recorded first page of a video search for "test" (no movie search was recorded). */
const VIDEO_SEARCH = JSON.parse(fs.readFileSync('test/fixtures/youtube/newpipe/search/youtubesearchextractor/videos/generated_mock_2.json', 'utf8')).response.responseBody as string;

let replay: YoutubeReplay;
let files: MediaServer;
let stt: SttServer;
let server: TestServer;
let key: string;
let sdk: Supadata;

beforeAll(async () => {
  const media = generateMedia();
  [replay, files, stt] = await Promise.all([startYoutubeReplay(), startMediaServer(), startSttServer()]);
  files.serve('/talk.m4a', media.make('talk.m4a', 25), 'audio/mp4');
  files.serve('/videoplayback', media.make('talk.m4a', 25), 'audio/mp4');
  server = await startTestServer({
    env: {
      GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin},googlevideo.com=${files.origin},media.example=${files.origin}`,
      GLEANER_STT_URL: stt.url,
      GLEANER_STT_MODEL: 'whisper-test',
    },
  });
  key = await server.createKey('Pro', { credits: 10_000 });
  const { Supadata: SupadataClient } = await import('@supadata/js');
  sdk = new SupadataClient({ apiKey: key, baseUrl: `${server.baseUrl}/v1` });
}, 300_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([replay?.close(), files?.close(), stt?.close()]);
});

const credits = async () => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

describe('transcripts: mode=generate and jobs on request', () => {
  it('mode=generate sends the audio to speech to text and returns the AI transcript', async () => {
    stt.reset();
    const reply = await sdk.transcript({ url: `${MEDIA}/talk.m4a`, mode: 'generate' });
    expect('content' in reply && Array.isArray(reply.content) && reply.content.length).toBeGreaterThan(0);
    expect(reply).toMatchObject({ lang: 'en' });
    expect(stt.calls.length).toBeGreaterThan(0);
  });

  it('mode=generate transcribes a YouTube video by speech to text although it has captions', async () => {
    stt.reset();
    const url = encodeURIComponent('https://youtu.be/GJLlxj_dtq8');
    const generated = await server.request('GET', `/v1/transcript?url=${url}&mode=generate&text=true`, { apiKey: key });
    expect(generated.status).toBe(200);
    expect(generated.body.aiGenerated).toBe(true);
    expect(generated.body.content).not.toContain('Hey, this is just a test');
    expect(stt.calls.length).toBeGreaterThan(0);
    // The audio came from the recorded player reply's audio-only stream (served here from a generated file).
    expect(files.requests.some((request) => request.includes('/videoplayback'))).toBe(true);
    // The same video without generate reads its captions (a cached generated transcript does not stand in for them).
    const captions = await server.request('GET', `/v1/transcript?url=${url}&text=true`, { apiKey: key });
    expect(captions.body.aiGenerated).toBe(false);
    expect(captions.body.content).toContain('Hey, this is just a test');
  });

  it('Prefer: respond-async gives 202 and a job when speech to text runs; transcript.getJobStatus reads it to completion', async () => {
    const before = await credits();
    const started = await server.request('GET', `/v1/transcript?url=${encodeURIComponent(`${MEDIA}/talk.m4a`)}&lang=en`, {
      apiKey: key,
      headers: { prefer: 'respond-async, wait=5' },
    });
    expect(started.status).toBe(202);
    replyChecker(server.app.operations).check('GET', `/v1/transcript?url=${encodeURIComponent(`${MEDIA}/talk.m4a`)}&lang=en`, 202, started.body);
    expect(started.headers.get('preference-applied')).toBe('respond-async');
    const jobId = started.body.jobId as string;
    expect(jobId).toMatch(/^job_/);
    const first = await sdk.transcript.getJobStatus(jobId);
    expect(['queued', 'active', 'completed']).toContain(first.status);
    const ownerId = (await server.request('GET', '/v1/me', { apiKey: key })).body.id as string;
    await server.app.services.jobs.waitFor(jobId, ownerId, 60_000);
    const status = await sdk.transcript.getJobStatus(jobId);
    expect(status.status).toBe('completed');
    replyChecker(server.app.operations).check('GET', `/v1/transcript/${jobId}`, 200, status);
    expect(status.error).toBeNull();
    expect(Array.isArray(status.result?.content) && status.result!.content.length).toBeGreaterThan(0);
    expect(status.result).toMatchObject({ lang: 'en' });
    // The job charged what the synchronous call would have: 2 credits for the started minute of AI transcript.
    const job = await server.request('GET', `/v1/jobs/${jobId}`, { apiKey: key });
    expect(job.body).toMatchObject({ status: 'completed', creditsUsed: 2 });
    expect(before - (await credits())).toBe(2);
  });

  it('Prefer: respond-async still answers captions at once (200), and without the header speech to text answers 200 too', async () => {
    const captions = await server.request('GET', `/v1/transcript?url=${encodeURIComponent('https://youtu.be/GJLlxj_dtq8')}`, { apiKey: key, headers: { prefer: 'respond-async' } });
    expect(captions.status).toBe(200);
    expect(captions.headers.get('preference-applied')).toBeNull();
    const inline = await server.request('GET', `/v1/transcript?url=${encodeURIComponent(`${MEDIA}/talk.m4a`)}`, { apiKey: key });
    expect(inline.status).toBe(200);
    expect(inline.body.aiGenerated).toBe(true);
  });

  it('transcript.getJobStatus of an unknown job or of a job of another kind is a SupadataError with the message', async () => {
    await expect(sdk.transcript.getJobStatus('job_nope')).rejects.toMatchObject({ name: 'SupadataError', message: expect.stringContaining('job_nope') });
  });
});

describe('the SDK parameters', () => {
  it('youtube.translate takes chunkSize', async () => {
    // The SDK passes any parameter through; its type lacks chunkSize.
    const params = { videoId: 'GJLlxj_dtq8', lang: 'ja', chunkSize: 70 } as Parameters<Supadata['youtube']['translate']>[0];
    const plain = await sdk.youtube.translate({ videoId: 'GJLlxj_dtq8', lang: 'ja' });
    const chunked = await sdk.youtube.translate(params);
    expect(Array.isArray(chunked.content)).toBe(true);
    const segments = chunked.content as Array<{ text: string }>;
    expect(segments.length).toBeLessThan((plain.content as unknown[]).length);
    expect(segments.every((s) => s.text.length <= 70 || !s.text.includes(' '))).toBe(true);
  });

  it('search takes type=movie and every feature, and sends each to YouTube in the search filter', async () => {
    const asked: string[] = [];
    replay.intercept = (request) => {
      if (request.key === 'search query=test type=4') return { body: VIDEO_SEARCH };
      return undefined;
    };
    const mark = replay.requests.length;
    const features = ['hd', 'subtitles', 'creative-commons', '3d', 'live', '4k', '360', 'location', 'hdr', 'vr180'];
    try {
      const reply = await sdk.youtube.search({ query: 'test', type: 'movie', features, limit: 5 });
      expect(reply.results.length).toBeGreaterThan(0);
      expect(reply.results.every((r) => r.type === 'video')).toBe(true);
    } finally {
      replay.intercept = undefined;
    }
    for (const request of replay.requests.slice(mark)) if (request.key.startsWith('search ')) asked.push(request.key);
    expect(asked).toContain('search query=test type=4');
    // Every feature is one boolean field of the filters message: decode what was sent.
    const { searchParams } = await import('../../src/platforms/youtube/search.js');
    const params = searchParams({ type: 'movie', sortBy: 'relevance', definition: 'any', caption: 'any', features: features as never });
    const bytes = [...Buffer.from(decodeURIComponent(params), 'base64')];
    // After the filters message's own tag and length: 2 (type) then 4,5,6,7,8,14,15,23,25,26 (booleans).
    const tags: number[] = [];
    for (let i = 2; i < bytes.length; ) {
      let tag = 0;
      let shift = 0;
      for (;;) {
        const b = bytes[i++];
        tag |= (b & 0x7f) << shift;
        shift += 7;
        if (b < 0x80) break;
      }
      tags.push(tag >> 3);
      i++;
    }
    expect(tags).toEqual([2, 4, 5, 6, 7, 8, 14, 15, 23, 25, 26]);
    const refused = await server.request('GET', '/v1/youtube/search?query=test&features=smell', { apiKey: key });
    expect(refused.status).toBe(400);
  });

  it("an error reaches the SDK with the spec's error.message, and the nested envelope stays as the spec gives it", async () => {
    const reply = await server.request('GET', '/v1/youtube/search?query=test&type=opera', { apiKey: key });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.any(String), requestId: expect.any(String) });
    expect(reply.body.message).toBe(reply.body.error.message);
    await expect(sdk.youtube.search({ query: 'test', type: 'opera' as never })).rejects.toMatchObject({ name: 'SupadataError', message: reply.body.error.message });
  });
});

describe("the video batch: the spec's reply on the spec's path, the SDK's job on the real-name path", () => {
  it('POST /v1/vidsite/video/batch answers 200 with the results; POST /v1/youtube/video/batch answers 202 with a job', async () => {
    const checker = replyChecker(server.app.operations);
    const spec = await server.request('POST', '/v1/vidsite/video/batch', { apiKey: key, body: { videoIds: ['kX3nB4PpJko', 'nope'] } });
    expect(spec.status).toBe(200);
    expect(spec.body.results[0]).toMatchObject({ videoId: 'kX3nB4PpJko', video: { id: 'kX3nB4PpJko' } });
    expect(spec.body.results[1]).toMatchObject({ videoId: 'nope', errorCode: 'INVALID_REQUEST' });
    expect(spec.body.stats).toEqual({ total: 2, succeeded: 1, failed: 1 });
    expect(spec.headers.get('x-credits-used')).toBe('1');
    checker.check('POST', '/v1/vidsite/video/batch', 200, spec.body);

    const sdkShape = await server.request('POST', '/v1/youtube/video/batch', { apiKey: key, body: { videoIds: ['kX3nB4PpJko'] } });
    expect(sdkShape.status).toBe(202);
    expect(sdkShape.body.jobId).toMatch(/^job_/);
    checker.check('POST', '/v1/youtube/video/batch', 202, sdkShape.body);
  });
});

describe('the transcript batch: the spec takes urls and answers at once; the SDK\'s videoIds, playlistId, channelId run as a job', () => {
  it('urls answer 200 with results and creditsUsed on both paths; videoIds answer 202 with a job on both paths, read at either batch path', async () => {
    const checker = replyChecker(server.app.operations);
    for (const path of ['/v1/vidsite/transcript/batch', '/v1/youtube/transcript/batch']) {
      const now = await server.request('POST', path, { apiKey: key, body: { urls: ['https://www.youtube.com/watch?v=GJLlxj_dtq8'], lang: 'en' } });
      expect(now.status).toBe(200);
      expect(now.body.results[0]).toMatchObject({ videoId: 'GJLlxj_dtq8', transcript: { lang: 'en' } });
      expect(now.body.creditsUsed).toBe(1);
      checker.check('POST', path, 200, now.body);

      const started = await server.request('POST', path, { apiKey: key, body: { videoIds: ['GJLlxj_dtq8'], lang: 'en' } });
      expect(started.status).toBe(202);
      expect(started.body.jobId).toMatch(/^job_/);
      checker.check('POST', path, 202, started.body);
      const me = (await server.request('GET', '/v1/me', { apiKey: key })).body;
      await server.app.services.jobs.waitFor(started.body.jobId, me.id, 30_000);
      for (const results of ['/v1/vidsite/batch', '/v1/youtube/batch']) {
        const read = await server.request('GET', `${results}/${started.body.jobId}`, { apiKey: key });
        expect(read.status).toBe(200);
        expect(read.body).toMatchObject({ status: 'completed', stats: { total: 1, succeeded: 1, failed: 0 } });
        expect(read.body.results[0]).toMatchObject({ videoId: 'GJLlxj_dtq8', transcript: { lang: 'en' } });
      }
    }
  });
});
