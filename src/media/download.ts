/**
 * Downloads a media file (or an HLS stream's segments) to a temporary file through the project's
 * HTTP client, so the SSRF guard, overrides and caps apply to media like to anything else. A body
 * that is announced too large or is plainly not media is refused before it is read.
 */
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';
import { parsePlaylist, pickRendition } from './hls.js';

export interface DownloadOptions {
  maxBytes: number;
  /** Headers the platform wants on media requests (Referer, cookies from its page). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface Downloaded {
  file: string;
  bytes: number;
  contentType?: string;
  hls: boolean;
}

/** Types that are certainly not audio or video. */
const NOT_MEDIA = /^(text\/(html|xml|css|javascript|csv|markdown)|application\/(json|(xhtml\+)?xml|javascript|pdf|zip|x-www-form-urlencoded)|image\/)/i;
const HLS_TYPE = /mpegurl/i;
const MEDIA_TIMEOUT_MS = 30 * 60 * 1000;
const MAX_HLS_SEGMENTS = 10_000;

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

function tooLarge(url: string, size: number | undefined, max: number): GleanerError {
  return new GleanerError(
    'PAYLOAD_TOO_LARGE',
    `The media at ${new URL(url).host} is ${size !== undefined ? megabytes(size) : 'larger than allowed'}; this server transcribes media up to ${megabytes(max)} (GLEANER_MEDIA_MAX_BYTES).`,
  );
}

function statusError(url: string, status: number): GleanerError {
  const host = new URL(url).host;
  if (status === 404 || status === 410) return new GleanerError('CONTENT_NOT_FOUND', `The media at ${host} does not exist (HTTP ${status}).`);
  if (status === 401 || status === 403) return new GleanerError('CONTENT_UNAVAILABLE', `${host} refused to serve the media (HTTP ${status}); it may be private, expired or region-locked.`);
  return new GleanerError('UPSTREAM_ERROR', `${host} answered the media request with HTTP ${status}.`);
}

export async function downloadMedia(http: HttpClient, url: string, dir: string, options: DownloadOptions): Promise<Downloaded> {
  const file = path.join(dir, 'source');
  const reply = await http.stream(url, {
    headers: options.headers,
    maxBytes: options.maxBytes,
    signal: options.signal,
    timeoutMs: options.timeoutMs ?? MEDIA_TIMEOUT_MS,
  });
  const contentType = reply.headers['content-type']?.split(';')[0].trim().toLowerCase();
  const declared = Number(reply.headers['content-length']);
  const refuse = (error: GleanerError): never => {
    reply.body.destroy();
    throw error;
  };
  if (reply.status >= 400) refuse(statusError(url, reply.status));
  if (Number.isFinite(declared) && declared > options.maxBytes) refuse(tooLarge(url, declared, options.maxBytes));
  const looksHls = (contentType !== undefined && HLS_TYPE.test(contentType)) || /\.m3u8$/i.test(new URL(reply.url).pathname);
  if (!looksHls && contentType && NOT_MEDIA.test(contentType)) {
    refuse(new GleanerError('UNSUPPORTED_CONTENT', `${url} is not an audio or video file: the server answered with ${contentType}. Give a direct media URL (mp4, webm, mov, m4a, mp3, wav, m3u8) or a supported platform URL.`));
  }
  if (looksHls || contentType?.startsWith('text/')) {
    // Playlists are small text; text/plain may be a playlist served carelessly, else it is not media.
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of reply.body) {
      size += (chunk as Buffer).length;
      if (size > 4 * 1024 * 1024) refuse(new GleanerError('UNSUPPORTED_CONTENT', `${url} is a text document, not an audio or video file.`));
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (!text.trimStart().startsWith('#EXTM3U')) {
      throw new GleanerError('UNSUPPORTED_CONTENT', `${url} is not an audio or video file (the server answered with ${contentType ?? 'no content type'}).`);
    }
    const bytes = await downloadHls(http, reply.url, text, file, options);
    return { file, bytes, contentType, hls: true };
  }
  await pipeline(reply.body, createWriteStream(file), { signal: options.signal });
  const { size } = await fs.stat(file);
  return { file, bytes: size, contentType, hls: false };
}

/** Follows a master playlist to its leanest rendition and writes its segments, in order, to `file`. */
async function downloadHls(http: HttpClient, playlistUrl: string, text: string, file: string, options: DownloadOptions): Promise<number> {
  let current = playlistUrl;
  let playlist = parsePlaylist(text, current);
  for (let depth = 0; playlist.variants.length > 0 && depth < 3; depth++) {
    current = pickRendition(playlist);
    const reply = await http.fetch(current, { headers: options.headers, signal: options.signal, maxBytes: 4 * 1024 * 1024 });
    if (reply.status >= 400) throw statusError(current, reply.status);
    playlist = parsePlaylist(reply.text(), current);
  }
  if (playlist.encrypted) throw new GleanerError('UNSUPPORTED_CONTENT', 'The HLS stream is encrypted; only clear streams can be transcribed.');
  if (playlist.segments.length === 0) throw new GleanerError('UNSUPPORTED_CONTENT', 'The HLS playlist lists no media segments.');
  if (playlist.segments.length > MAX_HLS_SEGMENTS) throw tooLarge(playlistUrl, undefined, options.maxBytes);
  const parts = playlist.map ? [playlist.map, ...playlist.segments] : playlist.segments;
  const out = await fs.open(file, 'w');
  let total = 0;
  try {
    for (const part of parts) {
      const reply = await http.fetch(part, { headers: options.headers, signal: options.signal, maxBytes: options.maxBytes - total, timeoutMs: 5 * 60 * 1000 });
      if (reply.status >= 400) throw statusError(part, reply.status);
      total += reply.body.length;
      await out.write(reply.body);
    }
  } catch (error) {
    if (error instanceof GleanerError && error.code === 'PAYLOAD_TOO_LARGE') throw tooLarge(playlistUrl, undefined, options.maxBytes);
    throw error;
  } finally {
    await out.close();
  }
  return total;
}
