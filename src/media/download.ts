/**
 * Brings a media file to a local path through the one HTTP client, within a byte cap. A file too
 * large by its Content-Length, or a reply that is a web page rather than media, is refused from its
 * headers and first bytes, before the body is read. HLS playlists are followed to their segments.
 */
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { HttpClient, StreamResponse } from '../net/http.js';
import { GleanerError } from '../errors.js';
import { parseHlsPlaylist, type HlsMediaPlaylist } from './hls.js';
import { looksLikeDash, parseDashManifest } from '../platforms/dash.js';

export interface DownloadOptions {
  maxBytes: number;
  /** Longest media accepted, in seconds (checked on HLS playlists before their segments are fetched). */
  maxSeconds: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Set for a URL taken from a manifest: it must be the media itself, not another manifest. */
  mediaOnly?: boolean;
}

export interface Downloaded {
  /** The URL finally answered. */
  url: string;
  contentType?: string;
  bytes: number;
}

const NOT_MEDIA_TYPES = /^(text\/(html|xml|css|javascript|csv|markdown)|application\/(json|xml|xhtml\+xml|javascript|pdf|zip|ld\+json)|image\/)/i;
const HLS_TYPES = /mpegurl/i;

export function statusError(status: number, what: string): GleanerError {
  if (status === 404 || status === 410) return new GleanerError('CONTENT_NOT_FOUND', `${what} does not exist (the server answered ${status}).`);
  if (status === 401 || status === 403 || status === 451) return new GleanerError('CONTENT_UNAVAILABLE', `${what} is not viewable without permission (the server answered ${status}).`);
  return new GleanerError('UPSTREAM_ERROR', `${what} could not be fetched (the server answered ${status}).`);
}

function tooLarge(bytes: number, max: number): GleanerError {
  return new GleanerError(
    'PAYLOAD_TOO_LARGE',
    `The media is ${formatBytes(bytes)}, more than the ${formatBytes(max)} this server downloads (GLEANER_MEDIA_MAX_BYTES).`,
  );
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${bytes} bytes`;
}

export async function downloadMedia(http: HttpClient, url: string, dest: string, options: DownloadOptions): Promise<Downloaded> {
  const response = await open(http, url, options, options.maxBytes);
  const contentType = response.headers['content-type']?.split(';')[0].trim().toLowerCase();
  const head = await readHead(response.body, 512);
  const start = head.toString('latin1').replace(/^\uFEFF/, '').trimStart();
  // Manifests are read here, never by ffmpeg: it would follow their URLs (file:///…) on its own.
  const dash = looksLikeDash(start, contentType);
  const hls = start.startsWith('#EXTM3U') || Boolean(contentType && HLS_TYPES.test(contentType));
  if (options.mediaOnly && (dash || hls)) {
    response.body.destroy();
    throw new GleanerError('UNSUPPORTED_CONTENT', 'The media a manifest points at is itself a manifest; it is not followed.');
  }
  if (dash) {
    const text = head.toString('utf8') + (await readAll(response.body, 4 * 1024 * 1024)).toString('utf8');
    return downloadDashAudio(http, response.url, text, dest, options);
  }
  if (contentType && NOT_MEDIA_TYPES.test(contentType)) {
    response.body.destroy();
    throw new GleanerError('UNSUPPORTED_CONTENT', `The URL leads to ${contentType}, not to audio or video.`);
  }
  if (hls) {
    const text = head.toString('utf8') + (await readAll(response.body, 4 * 1024 * 1024)).toString('utf8');
    return downloadHls(http, response.url, text, dest, options);
  }
  if (/^<(!doctype|html|\?xml|head|body)/i.test(start)) {
    response.body.destroy();
    throw new GleanerError('UNSUPPORTED_CONTENT', 'The URL leads to a web page, not to audio or video.');
  }
  const file = fs.createWriteStream(dest);
  file.write(head);
  await pipeline(response.body, file, { signal: options.signal });
  return { url: response.url, contentType, bytes: fs.statSync(dest).size };
}

async function open(http: HttpClient, url: string, options: DownloadOptions, maxBytes: number): Promise<StreamResponse> {
  const response = await http.stream(url, { headers: options.headers, maxBytes, signal: options.signal, timeoutMs: options.timeoutMs ?? 30 * 60_000 });
  if (response.status >= 400) {
    response.body.destroy();
    throw statusError(response.status, 'The media file');
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.body.destroy();
    throw tooLarge(declared, options.maxBytes);
  }
  return response;
}

/** Takes up to `size` bytes off the front of a stream, leaving the rest in it. */
async function readHead(body: Readable, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < size) {
    const chunk = body.read() as Buffer | null;
    if (chunk) {
      chunks.push(chunk);
      length += chunk.length;
      continue;
    }
    if (body.readableEnded || body.destroyed) break;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        body.off('readable', done);
        body.off('end', done);
        body.off('error', fail);
        resolve();
      };
      const fail = (error: Error) => {
        body.off('readable', done);
        body.off('end', done);
        reject(error);
      };
      body.once('readable', done);
      body.once('end', done);
      body.once('error', fail);
    });
  }
  return Buffer.concat(chunks);
}

async function readAll(body: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    length += (chunk as Buffer).length;
    if (length > max) throw new GleanerError('UNSUPPORTED_CONTENT', 'The manifest is larger than a manifest can be.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function fetchText(http: HttpClient, url: string, options: DownloadOptions): Promise<{ url: string; text: string }> {
  const response = await http.fetch(url, { headers: options.headers, maxBytes: 4 * 1024 * 1024, signal: options.signal });
  if (response.status >= 400) throw statusError(response.status, 'The HLS playlist');
  return { url: response.url, text: response.text() };
}

/** A DASH manifest: its lightest single-file audio-only representation, downloaded as plain media. */
async function downloadDashAudio(http: HttpClient, manifestUrl: string, xml: string, dest: string, options: DownloadOptions): Promise<Downloaded> {
  const manifest = parseDashManifest(xml, manifestUrl);
  if (manifest.durationSeconds && manifest.durationSeconds > options.maxSeconds) {
    throw new GleanerError(
      'PAYLOAD_TOO_LARGE',
      `The media is ${Math.round(manifest.durationSeconds / 60)} minutes long, more than the ${Math.round(options.maxSeconds / 60)} minutes this server transcribes (GLEANER_MEDIA_MAX_MINUTES).`,
    );
  }
  const audio = manifest.audio[0];
  if (!audio) throw new GleanerError('UNSUPPORTED_CONTENT', 'The DASH manifest offers no single-file audio track to transcribe.');
  return downloadMedia(http, audio.url, dest, { ...options, mediaOnly: true });
}

/**
 * Follows a master playlist to one rendition (an audio-only one when offered, else the lightest
 * variant: speech needs no picture) and concatenates its segments into one file ffmpeg can read.
 */
async function downloadHls(http: HttpClient, playlistUrl: string, text: string, dest: string, options: DownloadOptions): Promise<Downloaded> {
  let playlist = parseHlsPlaylist(text, playlistUrl);
  for (let depth = 0; playlist.kind === 'master'; depth++) {
    if (depth > 2) throw new GleanerError('UNSUPPORTED_CONTENT', 'The HLS playlist nests master playlists too deeply.');
    const next = playlist.audioUri ?? playlist.variants[0]?.uri;
    if (!next) throw new GleanerError('UNSUPPORTED_CONTENT', 'The HLS master playlist lists no stream.');
    const fetched = await fetchText(http, next, options);
    playlist = parseHlsPlaylist(fetched.text, fetched.url);
  }
  checkMediaPlaylist(playlist, options);
  const file = fs.createWriteStream(dest);
  let bytes = 0;
  try {
    for (const uri of [...(playlist.initUri ? [playlist.initUri] : []), ...playlist.segments]) {
      const response = await open(http, uri, options, options.maxBytes - bytes);
      for await (const chunk of response.body) {
        bytes += (chunk as Buffer).length;
        if (!file.write(chunk)) await new Promise<void>((resolve) => file.once('drain', () => resolve()));
      }
    }
  } catch (error) {
    file.destroy();
    if (error instanceof GleanerError && error.code === 'PAYLOAD_TOO_LARGE') throw tooLarge(bytes, options.maxBytes);
    throw error;
  }
  await new Promise<void>((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return { url: playlistUrl, contentType: 'application/vnd.apple.mpegurl', bytes };
}

function checkMediaPlaylist(playlist: HlsMediaPlaylist, options: DownloadOptions): void {
  if (playlist.encrypted) throw new GleanerError('UNSUPPORTED_CONTENT', 'The HLS stream is encrypted (EXT-X-KEY), which this server does not decrypt.');
  if (!playlist.ended) throw new GleanerError('UNSUPPORTED_CONTENT', 'The HLS playlist is a live stream (no EXT-X-ENDLIST); only finished media can be transcribed.');
  if (playlist.byteRanges) throw new GleanerError('UNSUPPORTED_CONTENT', 'The HLS playlist uses byte-range segments, which this server does not read.');
  if (playlist.segments.length === 0) throw new GleanerError('UNSUPPORTED_CONTENT', 'The HLS playlist lists no segments.');
  if (playlist.totalSeconds > options.maxSeconds) {
    throw new GleanerError(
      'PAYLOAD_TOO_LARGE',
      `The media is ${Math.round(playlist.totalSeconds / 60)} minutes long, more than the ${Math.round(options.maxSeconds / 60)} minutes this server transcribes (GLEANER_MEDIA_MAX_MINUTES).`,
    );
  }
}
