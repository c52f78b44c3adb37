/**
 * What a platform adapter reads from one post: the unified metadata, the media the speech-to-text
 * pipeline can fetch, and the caption tracks the platform publishes.
 */
import type { Metadata } from '../model/content.js';

export interface CaptionTrack {
  /** BCP 47 code, e.g. "en-US". */
  lang: string;
  url: string;
  format: 'webvtt' | 'srt';
  /** The platform's own speech recognition, a machine translation, or captions the author made. */
  source: 'asr' | 'translation' | 'author';
  /** The track in the language spoken in the video. */
  original?: boolean;
}

export interface MediaLink {
  url: string;
  /** Headers the media host expects (Referer, the cookies the page handed out). */
  headers?: Record<string, string>;
  durationSeconds?: number;
  /** Further renditions to try, in order, when one answers 403/404 or has no audio track. */
  alternates?: string[];
}

export interface PlatformPost {
  metadata: Metadata;
  /** Absent when the post has no video or audio (a photo, a text post), or the platform did not hand it out. */
  media?: MediaLink;
  /** Why there is no media, when the platform's page says more than "no video" (e.g. a login wall). */
  noMedia?: import('../errors.js').GleanerError;
  captions: CaptionTrack[];
  /** Headers for fetching the caption files. */
  captionHeaders?: Record<string, string>;
}
