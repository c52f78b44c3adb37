/**
 * Real media for the media tests, made once per run with espeak-ng (speech) and ffmpeg (tone,
 * picture, containers), a loopback server that serves it (and the odd cases: a 2 GB
 * Content-Length, a web page), and an OpenAI-compatible transcription server that ffprobes every
 * upload and answers with segments spread over the audio it really received.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface GeneratedMedia {
  dir: string;
  /** 4 to 5 s of speech (espeak-ng, 22 kHz WAV). */
  speech: string;
  path(name: string): string;
  /** Makes `name` (extension decides the container) `seconds` long: speech looped over a quiet tone, with a picture for video containers. */
  make(name: string, seconds: number, options?: { sampleRate?: number; video?: boolean }): string;
}

function run(program: string, args: string[]): void {
  execFileSync(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function generateMedia(): GeneratedMedia {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-media-'));
  const speech = path.join(dir, 'speech.wav');
  run('espeak-ng', ['-w', speech, 'Hello from the Gleaner test. This clip is spoken by a machine, and it repeats over a quiet tone.']);
  return {
    dir,
    speech,
    path: (name) => path.join(dir, name),
    make(name, seconds, options = {}) {
      const out = path.join(dir, name);
      if (fs.existsSync(out)) return out;
      const rate = String(options.sampleRate ?? 16000);
      const video = options.video ?? /\.(mp4|webm|mov|mkv)$/.test(name);
      const args = ['-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=f=300:sample_rate=${rate}:d=${seconds}`, '-stream_loop', '-1', '-i', speech];
      if (video) args.push('-f', 'lavfi', '-i', `color=c=navy:s=160x120:r=5:d=${seconds}`);
      args.push('-filter_complex', `[1:a]aresample=${rate},volume=2[s];[0:a]volume=0.1[t];[t][s]amix=inputs=2:duration=first[a]`, '-map', '[a]');
      if (video) args.push('-map', '2:v');
      args.push('-ac', '1', '-ar', rate, '-t', String(seconds));
      if (/\.webm$/.test(name)) args.push('-c:v', 'libvpx', '-b:v', '50k', '-c:a', 'libopus', '-b:a', '24k');
      else if (/\.(mp4|mov|m4a)$/.test(name)) args.push(...(video ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'] : []), '-c:a', 'aac', '-b:a', '32k');
      else if (/\.mp3$/.test(name)) args.push('-c:a', 'libmp3lame', '-b:a', '16k');
      args.push(out);
      run('ffmpeg', args);
      return out;
    },
  };
}

export function probeDuration(file: string): number {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' });
  return Number(out.trim());
}

export interface MediaServer {
  origin: string;
  /** Paths asked for, in order (with the method). */
  requests: string[];
  /** The same requests with their headers. */
  log: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }>;
  /** Serves a local file at a path, with a content type. */
  serve(urlPath: string, file: string, contentType: string): void;
  /** Answers a path with a function of the request (API replies that depend on the query). */
  route(urlPath: string, answer: (url: URL, req: http.IncomingMessage, body: string) => { status?: number; type?: string; body: string; headers?: Record<string, string> }): void;
  /** Serves a fixed body (with extra headers, e.g. Set-Cookie). */
  serveBody(urlPath: string, body: string | Buffer, contentType: string, headers?: Record<string, string | string[]>, status?: number): void;
  close(): Promise<void>;
}

/**
 * Serves files by path (any host: the tests reach it through GLEANER_UPSTREAM_OVERRIDES). Built in:
 * /huge.mp4 answers with a 2 GB Content-Length and then holds the body, as a real 2 GB file would.
 */
export async function startMediaServer(): Promise<MediaServer> {
  const routes = new Map<string, { file?: string; body?: Buffer; type: string; headers?: Record<string, string | string[]>; status?: number }>();
  const requests: string[] = [];
  const log: MediaServer['log'] = [];
  const handlers = new Map<string, Parameters<MediaServer['route']>[1]>();
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const urlPath = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(`${req.method} ${urlPath}`);
    log.push({ method: req.method ?? 'GET', path: urlPath, headers: req.headers });
    if (urlPath === '/huge.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(2 * 1024 * 1024 * 1024) });
      res.write(Buffer.alloc(64 * 1024));
      open.add(res);
      res.on('close', () => open.delete(res));
      return;
    }
    const dynamic = handlers.get(urlPath);
    if (dynamic) {
      // The request's body (a form or JSON an API call posts) is read before the answer is made.
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const answer = dynamic(new URL(req.url ?? '/', 'http://x'), req, Buffer.concat(chunks).toString('utf8'));
        res.writeHead(answer.status ?? 200, { ...answer.headers, 'content-type': answer.type ?? 'application/json' }).end(answer.body);
      });
      return;
    }
    const route = routes.get(urlPath);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const size = route.file ? fs.statSync(route.file).size : route.body!.length;
    res.writeHead(route.status ?? 200, { ...route.headers, 'content-type': route.type, 'content-length': String(size) });
    if (req.method === 'HEAD') res.end();
    else if (route.file) fs.createReadStream(route.file).pipe(res);
    else res.end(route.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    log,
    route: (urlPath, answer) => void handlers.set(urlPath, answer),
    serve: (urlPath, file, type) => void routes.set(urlPath, { file, type }),
    serveBody: (urlPath, body, type, headers, status) => void routes.set(urlPath, { body: Buffer.from(body), type, headers, status }),
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface SttCall {
  model: string;
  responseFormat: string;
  granularities: string[];
  language?: string;
  authorization?: string;
  filename: string;
  /** What ffprobe found in the upload. */
  codec: string;
  channels: number;
  sampleRate: number;
  durationSeconds: number;
}

export interface SttServer {
  /** Base URL for GLEANER_STT_URL. */
  url: string;
  calls: SttCall[];
  /** Most uploads being transcribed at once. */
  maxInFlight: number;
  /** Answers are held until this many uploads have arrived (proves they were sent concurrently). */
  holdUntil: number;
  /** Answers 500 to uploads for which this returns true. */
  failWhen?: (call: SttCall) => boolean;
  /** The language reported as heard (an English name, as OpenAI's verbose_json gives it). */
  language: string;
  /** Speaker labels a diarizing endpoint would give, segment i the label i mod their number (none: no labels). */
  speakers: string[];
  reset(): void;
  close(): Promise<void>;
}

const SEGMENT_SECONDS = 10;

export async function startSttServer(): Promise<SttServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-stt-'));
  let inFlight = 0;
  let arrived = 0;
  let release: () => void = () => undefined;
  let released = Promise.resolve();
  const state: SttServer = {
    url: '',
    calls: [],
    maxInFlight: 0,
    holdUntil: 0,
    language: 'english',
    speakers: [],
    reset() {
      state.calls.length = 0;
      state.maxInFlight = 0;
      state.holdUntil = 0;
      state.failWhen = undefined;
      state.language = 'english';
      state.speakers = [];
      arrived = 0;
      released = new Promise<void>((resolve) => (release = resolve));
    },
    close: async () => undefined,
  };
  state.reset();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    inFlight++;
    arrived++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    if (arrived >= state.holdUntil) release();
    try {
      const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
      const file = form.get('file') as File;
      const local = path.join(dir, `upload-${arrived}-${file.name}`);
      fs.writeFileSync(local, Buffer.from(await file.arrayBuffer()));
      const probe = JSON.parse(
        execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', local], { encoding: 'utf8' }),
      ) as { format: { duration: string }; streams: Array<{ codec_name: string; channels: number; sample_rate: string }> };
      fs.rmSync(local);
      const call: SttCall = {
        model: String(form.get('model')),
        responseFormat: String(form.get('response_format')),
        granularities: form.getAll('timestamp_granularities[]').map(String),
        language: form.get('language') === null ? undefined : String(form.get('language')),
        authorization: req.headers.authorization,
        filename: file.name,
        codec: probe.streams[0].codec_name,
        channels: probe.streams[0].channels,
        sampleRate: Number(probe.streams[0].sample_rate),
        durationSeconds: Number(probe.format.duration),
      };
      state.calls.push(call);
      await released;
      if (state.failWhen?.(call)) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'transcription failed (test)' } }));
        return;
      }
      // One segment per 10 s; the last takes the tail (encoders pad a few milliseconds).
      const count = Math.max(1, Math.floor(call.durationSeconds / SEGMENT_SECONDS));
      const segments = Array.from({ length: count }, (_, i) => {
        const start = i * SEGMENT_SECONDS;
        const end = i === count - 1 ? call.durationSeconds : start + SEGMENT_SECONDS;
        const speaker = state.speakers.length ? { speaker: state.speakers[i % state.speakers.length] } : {};
        return { id: i, start, end, text: ` Heard speech at ${start} s of a ${call.durationSeconds.toFixed(1)} s upload.`, ...speaker };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ task: 'transcribe', language: state.language, duration: call.durationSeconds, text: segments.map((s) => s.text).join(''), segments }));
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `bad upload: ${(error as Error).message}` } }));
    } finally {
      inFlight--;
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return state;
}

/** The font the slides are drawn in: Debian's fonts-dejavu-core (.ci/run installs it beside ffmpeg). */
export const SLIDE_FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';
const SLIDE_SIZE = '320x240';

function slideFont(): string {
  if (!fs.existsSync(SLIDE_FONT)) throw new Error(`The slides are drawn in ${SLIDE_FONT}: install fonts-dejavu-core (apt-get install fonts-dejavu-core).`);
  return SLIDE_FONT;
}

/** ffmpeg's drawtext filter writing `word` (capital letters only) in the middle of a slide. */
function drawWord(word: string, colour = 'white'): string {
  if (!/^[A-Z]+$/.test(word)) throw new Error(`A slide word is capital letters only: ${word}`);
  return `drawtext=fontfile=${slideFont()}:text=${word}:fontsize=56:fontcolor=${colour}:x=(w-text_w)/2:y=(h-text_h)/2`;
}

/**
 * A silent slideshow: one word after another (`seconds` each), no sound track. Each slide holds a
 * fact only its frames carry: the word it shows. Slides alternate white on black and black on
 * white, so each change of slide is a scene change (a new word alone changes too few pixels).
 */
export function makeSlideshow(file: string, words: string[], seconds: number): string {
  const [ink, paper] = [(i: number) => (i % 2 ? 'black' : 'white'), (i: number) => (i % 2 ? 'white' : 'black')];
  const inputs = words.flatMap((_, i) => ['-f', 'lavfi', '-i', `color=c=${paper(i)}:s=${SLIDE_SIZE}:r=10:d=${seconds}`]);
  const slides = words.map((word, i) => `[${i}:v]${drawWord(word, ink(i))}[s${i}]`).join(';');
  const concat = `${words.map((_, i) => `[s${i}]`).join('')}concat=n=${words.length}:v=1:a=0[v]`;
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', `${slides};${concat}`, '-map', '[v]', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  return file;
}

/** Pictures are compared as grey levels at this size, whatever size they arrive in. */
const COMPARE = { width: 160, height: 120 };

/**
 * A picture (JPEG, PNG: any still ffmpeg reads) as grey levels at the comparison size, light on
 * dark: a mostly light picture (dark ink on light paper) is inverted.
 */
function greys(picture: Buffer): Buffer {
  const pixels = execFileSync('ffmpeg', ['-v', 'error', '-f', 'image2pipe', '-i', 'pipe:0', '-vf', `scale=${COMPARE.width}:${COMPARE.height},format=gray`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { input: picture, maxBuffer: 1 << 24 });
  const mean = pixels.reduce((sum, level) => sum + level, 0) / pixels.length;
  return mean > 127 ? Buffer.from(pixels.map((level) => 255 - level)) : pixels;
}

/** A white-on-black slide as makeSlideshow draws it (with no word: the bare background), as grey levels at the comparison size. */
function referenceSlide(word?: string): Buffer {
  const filter = `${word ? `${drawWord(word)},` : ''}scale=${COMPARE.width}:${COMPARE.height},format=gray`;
  return execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `color=c=black:s=${SLIDE_SIZE}:d=1`, '-vf', filter, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { maxBuffer: 1 << 24 });
}

function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

/**
 * What a test "vision model" reads: the word a picture shows, among `vocabulary`, found by comparing
 * the picture pixel by pixel with a render of each candidate word drawn as the slides are (and of
 * the bare background). The word whose render is nearest wins; undefined when the picture is
 * nearer the bare background than to any word's render (it shows none of them).
 */
export function wordReader(vocabulary: string[]): (picture: Buffer) => string | undefined {
  const references = vocabulary.map((word) => ({ word, pixels: referenceSlide(word) }));
  const background = referenceSlide();
  return (picture) => {
    const seen = greys(picture);
    const ranked = references.map((r) => ({ word: r.word, distance: meanDifference(seen, r.pixels) })).sort((x, y) => x.distance - y.distance);
    return ranked[0] && ranked[0].distance < meanDifference(seen, background) ? ranked[0].word : undefined;
  };
}
