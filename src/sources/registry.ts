/**
 * Which source serves a URL. The cross-platform operations (`metadata`, `transcript`, analysis) walk
 * this list in order and use the first source that matches; web pages are the metadata fallback.
 */
import type { Source } from './contract.js';
import { youtubeSource } from './youtube.js';
import { facebookSource, instagramSource, tiktokSource, xSource } from './social.js';
import { directFileSource } from './direct-file.js';

/** Platforms first; the direct-file source last, so a platform URL ending in .mp4 stays with its platform. */
export const SOURCES: readonly Source[] = [youtubeSource, tiktokSource, instagramSource, xSource, facebookSource, directFileSource];

export function sourceFor(url: URL): Source | undefined {
  return SOURCES.find((source) => source.matches(url));
}
