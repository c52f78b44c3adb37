/**
 * No upstream can crash the process (issue 19 item 4). Servers that close the connection after each
 * reply the way Python's http.server does (HTTP/1.0, no keep-alive), that close in the middle of a
 * body, and a speech-to-text endpoint that answers before it has read the upload. Against undici 7
 * these reached `assert(!this.paused)` in its HTTP/1 parser (nodejs/undici#5360) from a socket
 * event, which no request handler can catch: the process died. The first tests drive the client in
 * this process and record every uncaught exception; the last run a real `gleaner serve` in a
 * process of its own, 50 transcripts of each kind, and check it is still serving afterwards.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/net/http.js';
import { guardedConnector, h1GuardActive, onH1GuardCatch, type H1GuardCatch } from '../../src/net/h1-guard.js';
import { isUpstreamClientFault } from '../../src/cli/upstream-faults.js';
import { isGleanerError } from '../../src/errors.js';
import { startClosingFileServer, startClosingSttServer, type FileServerMode, type SttServerMode } from '../support/closing-servers.js';
import { callApi, createKeyWithCli, startGleaner, type GleanerProcess } from '../support/processes.js';
import { generateMedia, type GeneratedMedia } from '../support/media.js';

/** 256 KB: several times the 64 KB a body buffers before undici's parser pauses. */
const FILE = Buffer.from(Array.from({ length: 256 * 1024 }, (_, i) => (i * 7919) % 251));

/** Writes a reply's body to a file, as a media download does (the disk takes it slower than loopback sends it). */
async function toDisk(body: Readable, dir: string): Promise<Buffer> {
  const file = path.join(dir, `body-${Math.random().toString(36).slice(2)}`);
  await pipeline(body, fs.createWriteStream(file));
  return fs.readFileSync(file);
}

describe('servers that close the connection, in this process', () => {
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-crash-bodies-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    uncaught.length = 0;
    process.on('uncaughtException', record);
  });
  afterEach(() => {
    process.off('uncaughtException', record);
  });

  it("the guard sees undici's parser (a new undici that moves it fails here, not in production)", () => {
    expect(h1GuardActive).toBe(true);
  });

  it('a body written to disk from a server that closes after each reply arrives whole, with a length and without', async () => {
    let mode: FileServerMode = 'close';
    const server = await startClosingFileServer(FILE, 'audio/wav', () => mode);
    const http = new HttpClient({ overrides: [], allowPrivate: true });
    try {
      for (const each of ['close', 'close-no-length'] as const) {
        mode = each;
        for (let i = 0; i < 15; i++) {
          const response = await http.stream(`${server.origin}/file.wav?n=${i}`);
          expect((await toDisk(response.body, dir)).equals(FILE), `${each} #${i}`).toBe(true);
        }
      }
    } finally {
      await http.close();
      await server.close();
    }
    expect(uncaught).toEqual([]);
  });

  it('a server that closes in the middle of a body fails that request with UPSTREAM_UNAVAILABLE, and the next one works', async () => {
    let mode: FileServerMode = 'close-mid-body';
    const server = await startClosingFileServer(FILE, 'audio/wav', () => mode);
    const http = new HttpClient({ overrides: [], allowPrivate: true });
    try {
      for (let i = 0; i < 10; i++) {
        const response = await http.stream(`${server.origin}/file.wav?n=${i}`);
        const failure = await toDisk(response.body, dir).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(isGleanerError(failure) && failure.code, String(failure)).toBe('UPSTREAM_UNAVAILABLE');
        expect((failure as Error).message).toMatch(/broke while its reply was being read/);
      }
      mode = 'close';
      expect((await http.fetch(`${server.origin}/after`)).body.equals(FILE)).toBe(true);
    } finally {
      await http.close();
      await server.close();
    }
    expect(uncaught).toEqual([]);
  });

  // A survival check, not a test of the guard: with the guard switched off (a scratch copy, issue 19
  // audit) this passes too. Against undici 7.30.2 neither a reset right after the answer nor one 5, 20
  // or 200 ms later, with a Buffer or a FormData upload, reached the assertion from this path.
  it('a speech-to-text endpoint that answers before reading the upload: each call gets the answer or a clear error', async () => {
    const answer = { task: 'transcribe', language: 'english', duration: 5, text: 'x'.repeat(200 * 1024) };
    const server = await startClosingSttServer(() => 'early', () => answer);
    const http = new HttpClient({ overrides: [], allowPrivate: true });
    const upload = Buffer.alloc(4 * 1024 * 1024, 1);
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        try {
          const reply = await http.fetch(`${server.url}/audio/transcriptions`, { method: 'POST', body: upload, headers: { 'content-type': 'application/octet-stream' } });
          expect(reply.json()).toEqual(answer);
          outcomes.push('answer');
        } catch (error) {
          expect(isGleanerError(error), String(error)).toBe(true);
          outcomes.push((error as { code: string }).code);
        }
      }
    } finally {
      await http.close();
      await server.close();
    }
    expect(outcomes.every((o) => o === 'answer' || o === 'UPSTREAM_UNAVAILABLE'), outcomes.join(' ')).toBe(true);
    expect(uncaught).toEqual([]);
  });
});

describe("the guard's last line and the process's (issue 19 item 4)", () => {
  it("an assertion thrown by undici's listener of a guarded socket fails that socket and is told, with the upstream's host and port", async () => {
    const { kParser } = createRequire(import.meta.url)('undici/lib/core/symbols.js') as { kParser: symbol };
    const socket = new net.Socket();
    (socket as unknown as Record<symbol, unknown>)[kParser] = { paused: false, statusCode: 200, shouldKeepAlive: true };
    const connect = guardedConnector(((_options: unknown, callback: (error: Error | null, socket: net.Socket) => void) => callback(null, socket)) as never);
    await new Promise<void>((resolve) => connect({ hostname: 'media.example', host: 'media.example', protocol: 'http:', port: '8080' } as never, () => resolve()));
    // What undici's onHttpSocketEnd throws, stack and all.
    socket.on('end', () => {
      const assertion = Object.assign(new Error('The expression evaluated to a falsy value:\n\n  assert(!this.paused)\n'), { code: 'ERR_ASSERTION' });
      assertion.stack = `AssertionError [ERR_ASSERTION]: ${assertion.message}\n    at Parser.finish (/app/node_modules/undici/lib/dispatcher/client-h1.js:375:5)`;
      throw assertion;
    });
    const told: H1GuardCatch[] = [];
    const stop = onH1GuardCatch((caught) => told.push(caught));
    const failure = new Promise<Error>((resolve) => socket.once('error', resolve));
    try {
      expect(() => socket.emit('end')).not.toThrow();
    } finally {
      stop();
    }
    expect((await failure).message).toMatch(/lost track of this connection/);
    expect(socket.destroyed).toBe(true);
    expect(told).toEqual([{ host: 'media.example', port: '8080', message: expect.stringContaining('assert(!this.paused)') }]);
  });

  it('takes only what undici itself throws from an event, never a program error or a forgotten promise', () => {
    const thrownIn = (frame: string, name = 'Error') => Object.assign(new Error('x'), { stack: `${name}: x\n    at ${frame}` });
    expect(isUpstreamClientFault(thrownIn('Parser.finish (/srv/node_modules/undici/lib/dispatcher/client-h1.js:375:5)'), 'uncaughtException')).toBe(true);
    expect(isUpstreamClientFault(thrownIn('node:internal/deps/undici/undici:14976:13'), 'uncaughtException')).toBe(true);
    expect(isUpstreamClientFault(thrownIn('Parser.finish (/srv/node_modules/undici/lib/dispatcher/client-h1.js:375:5)'), 'unhandledRejection')).toBe(false);
    // Our own code called by undici (a handler of ours throwing) is ours.
    expect(isUpstreamClientFault(thrownIn('onData (/srv/src/net/http.ts:10:1)'), 'uncaughtException')).toBe(false);
    expect(isUpstreamClientFault(thrownIn('x (/srv/node_modules/undici-helper/lib/a.js:1:1)'), 'uncaughtException')).toBe(false);
    expect(isUpstreamClientFault('a string', 'uncaughtException')).toBe(false);
  });

  /** Runs test/support/safety-net-child.ts in a process of its own. */
  function child(mode: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'test/support/safety-net-child.ts', mode], { timeout: 90_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
  }

  it("a process with the entry points' last line survives undici's real assertion (no guard), logs it, and each download completes", async () => {
    const { code, stdout, stderr } = await child('undici');
    expect(code, stderr.slice(-2000)).toBe(0);
    const { done } = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(done).toHaveLength(20);
    expect(done.every((outcome: string) => outcome === 'whole' || outcome.startsWith('failed')), done.join(' ')).toBe(true);
    // Undici 7 reached its assertion at least once in 20 (behind the slow stage, in nearly all); each was logged as a warning.
    const warnings = stderr.split('\n').filter((line) => line.includes('uncaught exception from the HTTP client'));
    expect(warnings.length).toBeGreaterThan(0);
    for (const line of warnings) expect(JSON.parse(line)).toMatchObject({ level: 40, error: { code: 'ERR_ASSERTION' }, at: expect.stringContaining('undici') });
  }, 120_000);

  it('a programming error or an unhandled rejection still ends the process with code 1, reported on stderr', async () => {
    const [bug, rejection] = await Promise.all([child('bug'), child('rejection')]);
    expect(bug.code).toBe(1);
    expect(bug.stdout).toBe('');
    expect(bug.stderr).toContain('TypeError: a programming error');
    expect(rejection.code).toBe(1);
    expect(rejection.stdout).toBe('');
    expect(rejection.stderr).toContain('fetch failed');
  }, 120_000);
});

describe('gleaner serve against servers that close the connection', () => {
  let media: GeneratedMedia;
  let files: Awaited<ReturnType<typeof startClosingFileServer>>;
  /** The same file from a server that keeps connections alive: with it, only the upload path meets a closing server. */
  let steady: { origin: string; close: () => Promise<void> };
  let stt: Awaited<ReturnType<typeof startClosingSttServer>>;
  let sttMode: SttServerMode = 'read';
  let serve: GleanerProcess;
  let key: string;
  let dataDir: string;

  /** verbose_json of about 100 KB: more than a body buffers before the parser pauses. */
  const transcription = () => ({
    task: 'transcribe',
    language: 'english',
    duration: 4.5,
    text: 'Hello from the test.',
    segments: Array.from({ length: 200 }, (_, i) => ({ id: i, start: i * 0.02, end: i * 0.02 + 0.02, text: ` Segment ${i} ${'of a long reply '.repeat(30)}` })),
  });

  beforeAll(async () => {
    media = generateMedia();
    // espeak-ng's WAV of about 5 s: some 250 KB, read by the download slower than loopback sends it.
    const wav = fs.readFileSync(media.speech);
    files = await startClosingFileServer(wav, 'audio/wav', () => 'close');
    const keepAlive = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
      res.end(wav);
    });
    await new Promise<void>((resolve) => keepAlive.listen(0, '127.0.0.1', resolve));
    steady = {
      origin: `http://127.0.0.1:${(keepAlive.address() as import('node:net').AddressInfo).port}`,
      close: () => {
        const closed = new Promise<void>((resolve) => keepAlive.close(() => resolve()));
        keepAlive.closeAllConnections();
        return closed;
      },
    };
    stt = await startClosingSttServer(() => sttMode, transcription);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-crash-'));
    const env = {
      GLEANER_DATA_DIR: dataDir,
      GLEANER_UPSTREAM_OVERRIDES: `media.example=${files.origin},steady.example=${steady.origin}`,
      GLEANER_STT_URL: stt.url,
      GLEANER_STT_MODEL: 'whisper-test',
    };
    key = await createKeyWithCli(env, 'Enterprise', 1_000_000);
    serve = await startGleaner(['serve', '--port', '0'], env);
  }, 120_000);

  afterAll(async () => {
    await serve?.stop();
    await Promise.all([files?.close(), stt?.close(), steady?.close()]);
    if (media) fs.rmSync(media.dir, { recursive: true, force: true });
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** 50 transcripts of distinct URLs (no cache) on `host`, three at a time; the codes of the errors, if any. */
  async function fiftyTranscripts(label: string, host = 'media.example'): Promise<{ ok: number; errors: string[] }> {
    const errors: string[] = [];
    let ok = 0;
    let next = 0;
    const worker = async () => {
      while (next < 50) {
        const n = next++;
        const url = `https://${host}/speech.wav?${label}=${n}`;
        const reply = await callApi(serve.url!, key, 'GET', `/v1/video/transcript?url=${encodeURIComponent(url)}`);
        if (reply.status === 200) {
          expect(reply.body.content.length, JSON.stringify(reply.body).slice(0, 300)).toBeGreaterThan(0);
          ok++;
        } else {
          // A clear error: the envelope with a code a person can act on, never a defect.
          expect(reply.body.error?.code, JSON.stringify(reply.body)).toMatch(/^UPSTREAM_/);
          errors.push(reply.body.error.code);
        }
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    return { ok, errors };
  }

  async function stillServing(): Promise<void> {
    expect(serve.child.exitCode).toBeNull();
    expect(serve.child.signalCode).toBeNull();
    expect((await callApi(serve.url!, key, 'GET', '/v1/me')).status).toBe(200);
    expect(serve.log()).not.toMatch(/AssertionError|ERR_ASSERTION|uncaught/i);
  }

  it('survives 50 transcripts of a direct file from a server that closes each connection; every one is transcribed', async () => {
    sttMode = 'read';
    const { ok, errors } = await fiftyTranscripts('closing');
    expect(errors).toEqual([]);
    expect(ok).toBe(50);
    expect(files.answered).toBeGreaterThanOrEqual(50);
    await stillServing();
  }, 300_000);

  // Only the upload path meets a closing server here. Like the one above, a survival check: with the
  // guard switched off in a scratch copy it passed as well, and the log showed no assertion (the
  // process-level net would have logged one), so this path did not reach undici's assertion.
  it('survives 50 transcripts against a speech-to-text endpoint that answers before reading the upload', async () => {
    sttMode = 'early';
    const before = stt.answered;
    const downloads = files.answered;
    // The media comes from the keep-alive server: the closing one is not asked, only the upload path meets a closer.
    const { ok, errors } = await fiftyTranscripts('early', 'steady.example');
    expect(files.answered).toBe(downloads);
    expect(ok + errors.length).toBe(50);
    expect(stt.answered - before).toBeGreaterThanOrEqual(50);
    await stillServing();
  }, 300_000);
});
