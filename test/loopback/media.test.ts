/**
 * Speech to text and the media pipeline through the REST API: direct files (mp4, m4a, HLS),
 * chunking with correct offsets, a 25-minute file, costs, and the early refusals. Real media made
 * by ffmpeg and espeak-ng; a loopback OpenAI-compatible transcription server that ffprobes uploads.
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, pageData } from '../support/mcp.js';
import { generateMedia, startMediaServer, startSttServer, type GeneratedMedia, type MediaServer, type SttServer } from '../support/media.js';

let media: GeneratedMedia;
let files: MediaServer;
let stt: SttServer;
let server: TestServer; // 60-second chunks
const MEDIA = 'https://media.example';

beforeAll(async () => {
  media = generateMedia();
  [files, stt] = await Promise.all([startMediaServer(), startSttServer()]);
  files.serve('/clips/short.mp4', media.make('short.mp4', 20), 'video/mp4');
  files.serve('/audio/talk.m4a', media.make('talk.m4a', 150), 'audio/mp4');
  files.serve('/download', media.make('short.webm', 12), 'application/octet-stream');
  files.serveBody('/page.html', '<!doctype html><html><head><title>Not a video</title></head><body>Hello</body></html>', 'text/html; charset=utf-8');
  files.serveBody('/tiny.mp3', Buffer.from(Array.from({ length: 100 }, (_, i) => (i * 31) % 256)), 'audio/mpeg');
  files.serveBody('/fake.mp4', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)), 'video/mp4');
  // HLS: the 20-second clip cut into 4-second MPEG-TS segments, with a master playlist.
  const hlsDir = media.path('hls');
  fs.mkdirSync(hlsDir, { recursive: true });
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', media.path('short.mp4'), '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '10', '-c:a', 'copy', '-f', 'hls', '-hls_time', '4', '-hls_list_size', '0', '-hls_segment_filename', `${hlsDir}/seg%02d.ts`, `${hlsDir}/audio.m3u8`]);
  for (const name of fs.readdirSync(hlsDir)) files.serve(`/hls/${name}`, `${hlsDir}/${name}`, name.endsWith('.ts') ? 'video/mp2t' : 'application/vnd.apple.mpegurl');
  files.serveBody('/hls/master.m3u8', '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360\nhigh/missing.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=120000,RESOLUTION=160x120\naudio.m3u8\n', 'application/x-mpegURL');
  server = await startTestServer({
    env: {
      GLEANER_STT_URL: stt.url,
      GLEANER_STT_API_KEY: 'stt-secret',
      GLEANER_STT_MODEL: 'whisper-test',
      GLEANER_STT_CHUNK_SECONDS: '60',
      GLEANER_UPSTREAM_OVERRIDES: `media.example=${files.origin}`,
    },
  });
  // espeak-ng and several ffmpeg encodes: 147 s measured at load 30 on 2 cores (docs/testing.md).
}, 300_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([files?.close(), stt?.close()]);
  if (media) fs.rmSync(media.dir, { recursive: true, force: true });
});

beforeEach(() => stt.reset());

async function credits(target: TestServer, key: string): Promise<number> {
  return (await target.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
}

function transcript(target: TestServer, key: string, url: string, extra = '') {
  return target.request('GET', `/v1/video/transcript?url=${encodeURIComponent(url)}${extra}`, { apiKey: key });
}

function tmpEntries(target: TestServer): string[] {
  const dir = `${target.dataDir}/tmp`;
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

describe('video_transcript on a direct file', () => {
  it('transcribes a 20-second mp4 as 16 kHz mono audio and costs 2 credits', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const reply = await transcript(server, key, `${MEDIA}/clips/short.mp4`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('2');
    expect(await credits(server, key)).toBe(98);
    expect(reply.body).toMatchObject({ aiGenerated: true, cached: false, lang: 'en' });
    expect(reply.body.durationMinutes).toBeCloseTo(20 / 60, 2);
    expect(stt.calls).toHaveLength(1);
    const call = stt.calls[0];
    expect(call).toMatchObject({ model: 'whisper-test', responseFormat: 'verbose_json', granularities: ['segment'], authorization: 'Bearer stt-secret', codec: 'mp3', channels: 1, sampleRate: 16000 });
    expect(call.durationSeconds).toBeGreaterThan(19.5);
    expect(call.durationSeconds).toBeLessThan(20.5);
    expect(reply.body.content).toHaveLength(2);
    expect(reply.body.content[0]).toMatchObject({ offset: 0, duration: 10000, lang: 'en' });
    expect(reply.body.content[1].offset).toBe(10000);
    expect(tmpEntries(server)).toEqual([]);
  });

  it('cuts 150 s of audio into 60-second chunks and stitches segments at the chunks\' offsets', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const reply = await transcript(server, key, `${MEDIA}/audio/talk.m4a`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.durationMinutes).toBeCloseTo(2.5, 1);
    expect(reply.headers.get('x-credits-used')).toBe('6');
    expect(stt.calls.map((c) => Math.round(c.durationSeconds)).sort((a, b) => b - a)).toEqual([60, 60, 30]);
    const offsets = (reply.body.content as Array<{ offset: number; duration: number }>).map((s) => s.offset);
    expect(offsets.length).toBe(15);
    for (let i = 1; i < offsets.length; i++) expect(offsets[i]).toBeGreaterThan(offsets[i - 1]);
    // Chunk two's first segment starts where chunk one ended, not at 0.
    expect(offsets[6]).toBeGreaterThanOrEqual(59_900);
    expect(offsets[6]).toBeLessThanOrEqual(60_100);
    expect(offsets[12]).toBeGreaterThanOrEqual(119_900);
    const last = reply.body.content.at(-1);
    expect(last.offset + last.duration).toBeLessThanOrEqual(150_200);
    expect(tmpEntries(server)).toEqual([]);
  });

  it('leaves out offsets with timestamps=false and passes lang to the recognizer', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    stt.language = 'german';
    const reply = await transcript(server, key, `${MEDIA}/clips/short.mp4`, '&timestamps=false&lang=de');
    expect(reply.status).toBe(200);
    expect(stt.calls[0].language).toBe('de');
    expect(reply.body.lang).toBe('de');
    for (const segment of reply.body.content) expect(Object.keys(segment).sort()).toEqual(['lang', 'text']);
  });

  it('reads media by content: a webm served as application/octet-stream from a URL without an extension', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const reply = await transcript(server, key, `${MEDIA}/download?id=7`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.durationMinutes).toBeCloseTo(0.2, 1);
    expect(stt.calls[0].durationSeconds).toBeGreaterThan(11.5);
  });

  it('follows an HLS master playlist to its lightest variant and joins the segments', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const reply = await transcript(server, key, `${MEDIA}/hls/master.m3u8`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.durationMinutes).toBeCloseTo(20 / 60, 1);
    expect(files.requests).toContain('GET /hls/seg04.ts');
    expect(files.requests).not.toContain('GET /hls/high/missing.m3u8');
  });
});

describe('video_transcript refusals', () => {
  it('refuses a 2 GB file from its Content-Length, before reading it, charging nothing', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    // The server sends 64 KB of the body and then holds it: a reader of the body would wait for the HTTP
    // deadline and answer a timeout, so a 413 is the refusal from the Content-Length (no wall-clock budget).
    const reply = await transcript(server, key, `${MEDIA}/huge.mp4`);
    expect(reply.status).toBe(413);
    expect(reply.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(reply.body.error.message).toContain('GLEANER_MEDIA_MAX_BYTES');
    expect(await credits(server, key)).toBe(100);
    expect(stt.calls).toHaveLength(0);
    expect(tmpEntries(server)).toEqual([]);
  });

  it('refuses a web page and a file that is not media, charging nothing', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const page = await transcript(server, key, `${MEDIA}/page.html`);
    expect(page.status).toBe(415);
    expect(page.body.error.code).toBe('UNSUPPORTED_CONTENT');
    const fake = await transcript(server, key, `${MEDIA}/fake.mp4`);
    expect(fake.status).toBe(415);
    expect(fake.body.error.code).toBe('UNSUPPORTED_CONTENT');
    const tiny = await transcript(server, key, `${MEDIA}/tiny.mp3`);
    expect(tiny.status).toBe(415);
    const missing = await transcript(server, key, `${MEDIA}/clips/none.mp4`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('CONTENT_NOT_FOUND');
    expect(await credits(server, key)).toBe(100);
    expect(stt.calls).toHaveLength(0);
  });

  it('says how to configure a provider when none is set, before downloading anything', async () => {
    const bare = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `media.example=${files.origin}` } });
    try {
      const key = await bare.createKey('Pro', { credits: 10 });
      const before = files.requests.length;
      const reply = await transcript(bare, key, `${MEDIA}/clips/short.mp4`);
      expect(reply.status).toBe(503);
      expect(reply.body.error.code).toBe('NOT_CONFIGURED');
      expect(reply.body.error.message).toContain('GLEANER_STT_URL');
      expect(reply.body.error.message).toContain('GLEANER_STT_API_KEY');
      expect(files.requests.length).toBe(before);
      expect(await credits(bare, key)).toBe(10);
    } finally {
      await bare.close();
    }
  });

  it('refuses media longer than GLEANER_MEDIA_MAX_MINUTES once ffprobe has read it, charging nothing', async () => {
    const short = await startTestServer({ env: { GLEANER_STT_URL: stt.url, GLEANER_MEDIA_MAX_MINUTES: '1', GLEANER_UPSTREAM_OVERRIDES: `media.example=${files.origin}` } });
    try {
      const key = await short.createKey('Pro', { credits: 10 });
      const reply = await transcript(short, key, `${MEDIA}/audio/talk.m4a`);
      expect(reply.status).toBe(413);
      expect(reply.body.error.message).toContain('GLEANER_MEDIA_MAX_MINUTES');
      expect(stt.calls).toHaveLength(0);
      expect(await credits(short, key)).toBe(10);
      expect(tmpEntries(short)).toEqual([]);
    } finally {
      await short.close();
    }
  });

  it('says how to install ffmpeg when it is missing', async () => {
    const noFfmpeg = await startTestServer({
      env: { GLEANER_STT_URL: stt.url, GLEANER_FFMPEG_PATH: '/nonexistent/bin/ffmpeg', GLEANER_UPSTREAM_OVERRIDES: `media.example=${files.origin}` },
    });
    try {
      const key = await noFfmpeg.createKey('Pro', { credits: 10 });
      const reply = await transcript(noFfmpeg, key, `${MEDIA}/clips/short.mp4`);
      expect(reply.status).toBe(503);
      expect(reply.body.error.code).toBe('NOT_CONFIGURED');
      expect(reply.body.error.message).toContain('GLEANER_FFMPEG_PATH');
      expect(reply.body.error.message).toContain('apt-get install ffmpeg');
      expect(await credits(noFfmpeg, key)).toBe(10);
    } finally {
      await noFfmpeg.close();
    }
  });
});

describe('a 25-minute file at the default chunk length', () => {
  let long: TestServer;
  // 25 minutes of audio made by ffmpeg and cut into chunks by Gleaner: over 60 s at load 20 plus a burner (docs/testing.md).
  beforeAll(async () => {
    files.serve('/long/lecture.wav', media.make('lecture.wav', 1500, { sampleRate: 8000 }), 'audio/wav');
    long = await startTestServer({ env: { GLEANER_STT_URL: stt.url, GLEANER_UPSTREAM_OVERRIDES: `media.example=${files.origin}` } });
  }, 300_000);
  afterAll(async () => long?.close());

  it('is split into three chunks transcribed at once, stitched in order, and costs 50 credits', async () => {
    const key = await long.createKey('Pro', { credits: 200 });
    stt.holdUntil = 3;
    const reply = await transcript(long, key, `${MEDIA}/long/lecture.wav`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(stt.maxInFlight).toBe(3);
    expect(stt.calls.map((c) => Math.round(c.durationSeconds)).sort((a, b) => b - a)).toEqual([600, 600, 300]);
    expect(reply.body.durationMinutes).toBe(25);
    expect(reply.headers.get('x-credits-used')).toBe('50');
    expect(await credits(long, key)).toBe(150);
    const offsets = (reply.body.content as Array<{ offset: number }>).map((s) => s.offset);
    expect(offsets).toHaveLength(150);
    for (let i = 1; i < offsets.length; i++) expect(offsets[i]).toBeGreaterThan(offsets[i - 1]);
    expect(Math.abs(offsets[60] - 600_000)).toBeLessThan(100);
    expect(Math.abs(offsets[120] - 1_200_000)).toBeLessThan(100);
    expect(tmpEntries(long)).toEqual([]);
  }, 300_000);

  it('fails whole, charging nothing, when one chunk fails', async () => {
    const key = await long.createKey('Pro', { credits: 200 });
    stt.failWhen = (call) => call.durationSeconds < 400;
    const reply = await transcript(long, key, `${MEDIA}/long/lecture.wav`);
    expect(reply.status).toBe(502);
    expect(reply.body.error.code).toBe('UPSTREAM_ERROR');
    expect(reply.body.error.message).toContain('speech-to-text');
    expect(await credits(long, key)).toBe(200);
    expect(tmpEntries(long)).toEqual([]);
  }, 300_000);

  it('is refused with CREDITS_EXHAUSTED once its length is known when the balance cannot cover it', async () => {
    const key = await long.createKey('Pro', { credits: 20 });
    const reply = await transcript(long, key, `${MEDIA}/long/lecture.wav`);
    expect(reply.status).toBe(402);
    expect(reply.body.error.code).toBe('CREDITS_EXHAUSTED');
    expect(stt.calls).toHaveLength(0);
    expect(await credits(long, key)).toBe(20);
  }, 300_000);
});

describe('over MCP', () => {
  it('video_transcript is a tool that returns the transcript, and says what is missing as an error result', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const client = await connectMcp(server.baseUrl, key);
    try {
      const result = await client.callTool({ name: 'video_transcript', arguments: { url: `${MEDIA}/clips/short.mp4`, timestamps: false } });
      expect(result.isError).toBeFalsy();
      const body = pageData(result) as { aiGenerated: boolean; content: Array<Record<string, unknown>> };
      expect(body.aiGenerated).toBe(true);
      expect(body.content[0]).not.toHaveProperty('offset');
      const refused = await client.callTool({ name: 'video_transcript', arguments: { url: `${MEDIA}/page.html` } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('UNSUPPORTED_CONTENT');
    } finally {
      await client.close();
    }
  });
});

describe('metadata of a direct file', () => {
  it('reads duration and picture size with ffprobe', async () => {
    const key = await server.createKey('Pro', { credits: 10 });
    const reply = await server.request('GET', `/v1/metadata?url=${encodeURIComponent(`${MEDIA}/clips/short.mp4`)}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ platform: 'web', type: 'video', title: 'short.mp4', additionalData: { source: 'media-file' } });
    expect(reply.body.durationSeconds).toBeCloseTo(20, 0);
  });
});

describe('speakers', () => {
  it('a diarizing endpoint\'s labels come through as speaker on each segment, and as "Speaker n:" in the MCP text block', async () => {
    stt.speakers = ['SPEAKER_00', 'SPEAKER_00', 'SPEAKER_01'];
    const key = await server.createKey('Pro', { credits: 100 });
    const url = `${MEDIA}/clips/short.mp4`;
    const reply = await server.request('GET', `/v1/video/transcript?url=${encodeURIComponent(url)}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.content.map((s: { speaker?: string }) => s.speaker)).toEqual(['SPEAKER_00', 'SPEAKER_00']);
    const client = await connectMcp(server.baseUrl, key);
    try {
      stt.speakers = ['A', 'B'];
      const other = `${MEDIA}/audio/talk.m4a`;
      const result = await client.callTool({ name: 'video_transcript', arguments: { url: other } });
      const text = (result.content as Array<{ text: string }>)[0].text;
      // 150 s in 60-second chunks, a segment every 10 s, labels restarting in each chunk: A B A B A B, A B ..., A.
      expect(text).toContain('[00:00] Speaker 1: Heard speech at 0 s');
      expect(text).toContain('[00:10] Speaker 2: Heard speech at 10 s');
      expect(text).toContain('[00:20] Speaker 1: Heard speech at 20 s');
      const structured = pageData(result) as { content: Array<{ speaker?: string }> };
      expect(structured.content.map((s) => s.speaker).slice(0, 4)).toEqual(['A', 'B', 'A', 'B']);
    } finally {
      await client.close();
    }
  });

  it('an endpoint without labels gives segments without speaker, and no "Speaker" in the text', async () => {
    const key = await server.createKey('Pro', { credits: 100 });
    const reply = await server.request('GET', `/v1/video/transcript?url=${encodeURIComponent(`${MEDIA}/clips/short.mp4`)}&lang=de`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.content.every((s: object) => !('speaker' in s))).toBe(true);
  });
});
