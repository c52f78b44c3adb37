/**
 * URL handlers for the short-video and social platforms and for direct media files: each joins a
 * platform adapter (metadata, media URL, native captions) to the speech-to-text pipeline.
 */
import type { UrlHandler } from './url-handlers.js';
import { directMediaMetadata, looksLikeMediaFile } from '../media/direct.js';
import { transcribeMedia } from '../media/pipeline.js';

export const directVideoHandler: UrlHandler = {
  platform: 'video',
  matches: looksLikeMediaFile,
  metadata: (url, ctx) => directMediaMetadata(url, ctx),
  transcript: (url, options, ctx) => transcribeMedia(url.toString(), options, ctx),
};

export const MEDIA_HANDLERS: UrlHandler[] = [directVideoHandler];
