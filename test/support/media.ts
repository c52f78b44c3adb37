/**
 * Real media made with ffmpeg and espeak-ng for the speech-to-text tests, and a loopback
 * OpenAI-compatible /v1/audio/transcriptions server that checks what it receives is real audio
 * (ffprobe reads its length) and answers with segments spread over that length.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';

const run = promisify(execFile);

export interface TestMedia {
  dir: string;
  /** 64 s mp4 (a small picture, speech then a tone). */
  shortMp4: string;
  /** 25 minutes of audio: an espeak clip, then a low-rate tone. */
  longMp3: string;
  /** A video without any audio track. */
  silentMp4: string;
  /** The short media as HLS: master.m3u8 -> audio rendition -> segments. */
  hlsDir: string;
}

async function ffmpeg(args: string[]): Promise<void> {
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

export async function durationOf(file: string): Promise<number> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
  return Number(stdout.trim());
}

export async function makeTestMedia(): Promise<TestMedia> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-media-'));
  const speech = path.join(dir, 'speech.wav');
  await run('espeak-ng', ['-w', speech, 'Hello from Gleaner. This is a test of speech to text across several pieces of audio.']);
  const shortMp4 = path.join(dir, 'short.mp4');
  await ffmpeg([
    '-f', 'lavfi', '-i', 'color=c=navy:s=64x64:r=5:d=64',
    '-i', speech,
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=16000:duration=64',
    '-filter_complex', '[1:a]aresample=16000,aformat=channel_layouts=mono[s];[2:a]aformat=channel_layouts=mono[t];[s][t]concat=n=2:v=0:a=1,atrim=0:64[a]',
    '-map', '0:v', '-map', '[a]', '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-b:a', '32k', '-t', '64', '-movflags', '+faststart', shortMp4,
  ]);
  const longMp3 = path.join(dir, 'long.mp3');
  await ffmpeg([
    '-i', speech,
    '-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=8000:duration=1500',
    '-filter_complex', '[0:a]aresample=8000,aformat=channel_layouts=mono[s];[1:a]aformat=channel_layouts=mono[t];[s][t]concat=n=2:v=0:a=1,atrim=0:1500[a]',
    '-map', '[a]', '-c:a', 'libmp3lame', '-b:a', '8k', longMp3,
  ]);
  const silentMp4 = path.join(dir, 'silent.mp4');
  await ffmpeg(['-f', 'lavfi', '-i', 'color=c=black:s=32x32:r=5:d=5', '-c:v', 'libx264', '-preset', 'ultrafast', silentMp4]);
  const hlsDir = path.join(dir, 'hls');
  fs.mkdirSync(hlsDir);
  await ffmpeg(['-i', shortMp4, '-vn', '-c:a', 'aac', '-b:a', '32k', '-f', 'hls', '-hls_time', '10', '-hls_playlist_type', 'vod', '-hls_segment_filename', path.join(hlsDir, 'a%03d.ts'), path.join(hlsDir, 'audio.m3u8')]);
  fs.writeFileSync(
    path.join(hlsDir, 'master.m3u8'),
    '#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="main",DEFAULT=YES,URI="audio.m3u8"\n#EXT-X-STREAM-INF:BANDWIDTH=900000,AUDIO="aud"\nvideo-missing.m3u8\n',
  );
  return { dir, shortMp4, longMp3, silentMp4, hlsDir };
}

export interface SttRequest {
  fields: Record<string, string[]>;
  fileName: string;
  fileBytes: number;
  /** Seconds, as ffprobe reads the uploaded file. */
  seconds: number;
  authorization?: string;
}

export interface SttServer {
  url: string;
  requests: SttRequest[];
  /** Answer this (0-based) request with HTTP 500 instead. */
  failRequest?: number;
  /** Requests in flight at once, at most. */
  peakConcurrency: number;
  close(): Promise<void>;
}

/** Segments every 8 seconds of what was heard, labelled with the upload's name and length. */
export async function startSttServer(language = 'english'): Promise<SttServer> {
  const uploads = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-stt-'));
  let count = 0;
  let inFlight = 0;
  const state: SttServer = { url: '', requests: [], peakConcurrency: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const index = count++;
    inFlight++;
    state.peakConcurrency = Math.max(state.peakConcurrency, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
          res.writeHead(404).end();
          return;
        }
        const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
        const file = form.get('file') as File;
        const fields: Record<string, string[]> = {};
        for (const [key, value] of form.entries()) if (typeof value === 'string') (fields[key] ??= []).push(value);
        const saved = path.join(uploads, `${index}-${file.name}`);
        fs.writeFileSync(saved, Buffer.from(await file.arrayBuffer()));
        const seconds = await durationOf(saved);
        fs.rmSync(saved);
        state.requests.push({ fields, fileName: file.name, fileBytes: file.size, seconds, authorization: req.headers.authorization });
        if (state.failRequest === index) {
          res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model crashed' } }));
          return;
        }
        const segments = [];
        for (let start = 0; start < seconds; start += 8) {
          segments.push({ id: segments.length, start, end: Math.min(seconds + 0.4, start + 8), text: ` words at ${start}s of ${file.name}` });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ task: 'transcribe', language, duration: seconds, text: segments.map((s) => s.text).join(''), segments }));
      } catch (error) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(error) } }));
      } finally {
        inFlight--;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
      fs.rmSync(uploads, { recursive: true, force: true });
    });
  return state;
}
