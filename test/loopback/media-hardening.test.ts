/**
 * Issue 11 items 2 and 4, through the REST API with real ffmpeg/ffprobe runs:
 * - a media URL answering a manifest that points at the server's own disk (file:///…) reads no
 *   local file, tells nothing about it, and names no server path;
 * - transcription is charged and capped on the audio really decoded, not on the duration the
 *   file's header claims.
 * Every manifest and the lying file here are built by this test (no recording of an attack exists).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { generateMedia, startMediaServer, startSttServer, type GeneratedMedia, type MediaServer, type SttServer } from '../support/media.js';

let media: GeneratedMedia;
let upstream: MediaServer;
let stt: SttServer;
let server: TestServer;
let capped: TestServer;
/** A real, transcribable audio file on the server's disk: if anything read it, the STT server would hear it. */
let canary: string;

const q = encodeURIComponent;
const mpd = (baseUrl: string) =>
  `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT5S"><Period><AdaptationSet contentType="audio"><Representation id="a" bandwidth="50000" mimeType="audio/mp4"><BaseURL>${baseUrl}</BaseURL><SegmentBase indexRange="0-10"/></Representation></AdaptationSet></Period></MPD>`;

function run(args: string[]): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
}

beforeAll(async () => {
  media = generateMedia();
  canary = media.make('canary.wav', 6);
  [upstream, stt] = await Promise.all([startMediaServer(), startSttServer()]);
  const env = { GLEANER_STT_URL: stt.url, GLEANER_UPSTREAM_OVERRIDES: `media.example=${upstream.origin}` };
  [server, capped] = await Promise.all([startTestServer({ env }), startTestServer({ env: { ...env, GLEANER_MEDIA_MAX_MINUTES: '2' } })]);

  upstream.serveBody('/evil.mpd', `<?xml version="1.0"?>\n${mpd(`file://${canary}`)}`, 'application/dash+xml');
  upstream.serveBody('/missing.mpd', mpd('file:///nonexistent/gleaner-canary.wav'), 'application/dash+xml');
  // No XML declaration, served under a media type: recognised by its first bytes all the same.
  upstream.serveBody('/evil.mp4', mpd(`file://${canary}`), 'video/mp4');
  upstream.serveBody('/missing.mp4', mpd('file:///nonexistent/gleaner-canary.wav'), 'video/mp4');
  // A playlist whose one segment is itself a playlist naming the local file: the concatenated
  // download is that playlist, which ffmpeg would follow if it read playlists.
  upstream.serveBody('/list.m3u8', '#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\n/seg.ts\n#EXT-X-ENDLIST\n', 'application/vnd.apple.mpegurl');
  upstream.serveBody('/seg.ts', `#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nfile://${canary}\n#EXT-X-ENDLIST\n`, 'video/mp2t');
  // A DASH manifest Gleaner parses itself: its audio-only BaseURL (a web URL) is downloaded.
  upstream.serve('/audio-only.m4a', media.make('audio-only.m4a', 7), 'audio/mp4');
  upstream.serveBody('/good.mpd', mpd('/audio-only.m4a'), 'application/dash+xml');

  // A file whose header claims 5 s but which holds 300 s of audio: Matroska audio with its Duration
  // element rewritten (ffmpeg's MP3 demuxer notices a Xing frame count that disagrees with the file
  // size, so the lie is told in a Matroska header, which ffprobe believes).
  const honest = media.path('long300.mka');
  run(['-f', 'lavfi', '-i', 'sine=f=300:sample_rate=16000:d=300', '-ac', '1', '-c:a', 'libopus', '-b:a', '16k', honest]);
  const bytes = fs.readFileSync(honest);
  const at = bytes.indexOf(Buffer.from([0x44, 0x89, 0x88]));
  bytes.writeDoubleBE(5000, at + 3);
  const liar = media.path('liar.mka');
  fs.writeFileSync(liar, bytes);
  upstream.serve('/liar.mka', liar, 'audio/x-matroska');
}, 300_000);

afterAll(async () => {
  await Promise.all([server?.close(), capped?.close()]);
  await Promise.all([upstream?.close(), stt?.close()]);
  if (media) fs.rmSync(media.dir, { recursive: true, force: true });
});

beforeEach(() => stt.reset());

async function credits(target: TestServer, key: string): Promise<number> {
  return (await target.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
}

describe('manifests Gleaner did not parse itself are not followed', () => {
  it('a DASH manifest whose BaseURL is file:///… is refused, reads no local file, names no path, charges nothing', async () => {
    const key = await server.createKey('Free', { credits: 50 });
    for (const name of ['evil.mpd', 'evil.mp4']) {
      const reply = await server.request('GET', `/v1/video/transcript?url=${q(`https://media.example/${name}`)}`, { apiKey: key });
      expect(reply.status, JSON.stringify(reply.body)).toBe(415);
      expect(reply.body.error.code).toBe('UNSUPPORTED_CONTENT');
      expect(reply.body.error.message).not.toContain(path.dirname(canary));
      expect(reply.body.error.message).not.toContain('canary');
    }
    expect(stt.calls).toHaveLength(0);
    expect(await credits(server, key)).toBe(50);
  });

  it('metadata says the same for a local file that exists and one that does not', async () => {
    const key = await server.createKey('Free', { credits: 50 });
    for (const [existing, missing] of [['evil.mpd', 'missing.mpd'], ['evil.mp4', 'missing.mp4']]) {
      const present = await server.request('GET', `/v1/metadata?url=${q(`https://media.example/${existing}`)}`, { apiKey: key });
      const absent = await server.request('GET', `/v1/metadata?url=${q(`https://media.example/${missing}`)}`, { apiKey: key });
      expect(present.status, JSON.stringify(present.body)).toBe(415);
      expect(absent.status).toBe(present.status);
      expect(absent.body.error.message).toBe(present.body.error.message);
      expect(present.body.error.message).not.toContain('canary');
    }
    expect(await credits(server, key)).toBe(50);
  });

  it('a playlist downloaded as a segment is not read as a playlist by ffmpeg', async () => {
    const key = await server.createKey('Free', { credits: 50 });
    const reply = await server.request('GET', `/v1/video/transcript?url=${q('https://media.example/list.m3u8')}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(415);
    expect(reply.body.error.message).not.toContain(media.dir);
    expect(reply.body.error.message).not.toMatch(/\/tmp\/|gleaner-/);
    expect(stt.calls).toHaveLength(0);
    expect(await credits(server, key)).toBe(50);
  });

  it('a DASH manifest with a web audio-only BaseURL is read by Gleaner and that audio transcribed', async () => {
    const key = await server.createKey('Free', { credits: 50 });
    const reply = await server.request('GET', `/v1/video/transcript?url=${q('https://media.example/good.mpd')}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.aiGenerated).toBe(true);
    expect(upstream.requests).toContain('GET /audio-only.m4a');
    expect(stt.calls.reduce((sum, c) => sum + c.durationSeconds, 0)).toBeCloseTo(7, 0);
  });
});

describe('transcription is charged and capped on the audio decoded', () => {
  it('a file whose header claims 5 s but holds 300 s is charged for 300 s', async () => {
    const probed = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', media.path('liar.mka')], { encoding: 'utf8' }));
    expect(probed).toBeCloseTo(5, 0);
    const key = await server.createKey('Free', { credits: 50 });
    const reply = await server.request('GET', `/v1/video/transcript?url=${q('https://media.example/liar.mka')}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.durationMinutes).toBeCloseTo(5, 1);
    expect(reply.headers.get('x-credits-used')).toBe('10');
    expect(stt.calls.reduce((sum, c) => sum + c.durationSeconds, 0)).toBeGreaterThan(295);
    expect(await credits(server, key)).toBe(40);
  });

  it('with a 2-minute cap the same file is refused after decoding past the cap, charged nothing, nothing sent', async () => {
    const key = await capped.createKey('Free', { credits: 50 });
    const reply = await capped.request('GET', `/v1/video/transcript?url=${q('https://media.example/liar.mka')}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(413);
    expect(reply.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(stt.calls).toHaveLength(0);
    expect(await credits(capped, key)).toBe(50);
  });
});
