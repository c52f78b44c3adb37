/**
 * Which platform serves a URL. The cross-platform operations (`metadata`, `transcript`) walk this
 * list in order and use the first handler that matches; web pages are the metadata fallback.
 */
import type { Metadata, TranscriptResponse } from '../model/content.js';
import type { OperationContext } from './define.js';
import type { MediaSource } from '../media/pipeline.js';
import { youtubeUrlHandler } from './youtube-handler.js';
import { MEDIA_HANDLERS } from './media-handlers.js';

export interface TranscriptOptions {
  lang?: string;
  translate?: string;
  timestamps: boolean;
  text?: boolean;
  /** Captions only: never speech to text (the Supadata SDK's mode=native). */
  captionsOnly?: boolean;
  /** Speech to text even where captions exist (mode=generate). */
  generate?: boolean;
}

export interface UrlHandler {
  platform: Metadata['platform'];
  /** True when this handler owns the URL. */
  matches(url: URL): boolean;
  metadata?(url: URL, ctx: OperationContext): Promise<Metadata>;
  transcript?(url: URL, options: TranscriptOptions, ctx: OperationContext): Promise<TranscriptResponse>;
  /** The video itself (a rendition with pictures), for analysis that looks at its frames. */
  videoMedia?(url: URL, ctx: OperationContext): Promise<MediaSource | undefined>;
}

export const URL_HANDLERS: UrlHandler[] = [youtubeUrlHandler, ...MEDIA_HANDLERS];

export function handlerFor(url: URL): UrlHandler | undefined {
  return URL_HANDLERS.find((handler) => handler.matches(url));
}
