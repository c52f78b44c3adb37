/**
 * Direct media file URLs (mp4, webm, mov, m4a, mp3, wav, HLS ...): what the file is, read by
 * ffprobe after a capped download, never guessed from the URL's ending alone.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { GleanerError } from '../errors.js';
import type { Metadata } from '../model/content.js';
import { downloadMedia } from './download.js';
import { assertMediaTools, probeMedia } from './tools.js';
import { makeWorkDir, mediaTools, type MediaContext } from './pipeline.js';

const MEDIA_EXTENSIONS = /\.(mp4|m4v|webm|mov|mkv|mka|avi|m4a|mp3|wav|ogg|oga|opus|flac|aac|m3u8|mpd|ts|3gp)$/i;

/** URLs that look like media files (routing only; the content is checked when fetched). */
export function looksLikeMediaFile(url: URL): boolean {
  return MEDIA_EXTENSIONS.test(url.pathname);
}

export async function directMediaMetadata(url: URL, ctx: Pick<MediaContext, 'services' | 'signal'>): Promise<Metadata> {
  const { config, http } = ctx.services;
  const tools = mediaTools(config);
  await assertMediaTools(tools);
  const dir = await makeWorkDir(config, 'probe-');
  try {
    const file = path.join(dir, 'input');
    await downloadMedia(http, url.toString(), file, {
      maxBytes: config.GLEANER_MEDIA_MAX_BYTES,
      maxSeconds: config.GLEANER_MEDIA_MAX_MINUTES * 60,
      signal: ctx.signal,
    });
    const probe = await probeMedia(tools, file, ctx.signal);
    if (!probe.audio && !probe.hasVideo) throw new GleanerError('UNSUPPORTED_CONTENT', 'The URL does not lead to audio or video.');
    const name = decodeURIComponent(url.pathname.split('/').pop() ?? '') || null;
    const tags = probe.tags;
    return {
      platform: 'video',
      type: 'video',
      mediaUrl: url.toString(),
      url: url.toString(),
      id: url.toString(),
      title: tags.title ?? name,
      description: tags.comment ?? tags.description ?? null,
      author: tags.artist || tags.author ? { name: tags.artist ?? tags.author } : null,
      thumbnails: [],
      durationSeconds: Math.round(probe.durationSeconds * 1000) / 1000,
      publishedAt: tags.creation_time ?? tags.date,
      tags: [],
      language: tags.language,
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
