/**
 * The sources keep every transcript they fetch (see store/kept-transcripts.ts): timed, untranslated,
 * whatever shape the caller then asked for. Keeping is best effort: a store that fails to keep one
 * never fails the call that fetched it.
 */
import type { Store } from '../store/store.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { TranscriptResponse, TranscriptSegment } from '../model/content.js';
import { KeptTranscripts, type KeptTranscript } from '../store/kept-transcripts.js';

interface KeepContext {
  services: { store: Store; config: Config };
  log?: Logger;
}

export function keptTranscripts(services: KeepContext['services']): KeptTranscripts {
  return new KeptTranscripts(services.store, services.config.GLEANER_KEEP_TRANSCRIPTS_DAYS);
}

/**
 * What a video other than YouTube's is kept under: its URL without the fragment (the key hashes it).
 * The platforms' own ids are known only once the post is fetched, and a search must find a kept
 * transcript from the URL it was given, before fetching anything.
 */
export function keptUrlId(url: URL): string {
  const copy = new URL(url);
  copy.hash = '';
  return copy.toString();
}

/** The kept form of a timed transcript reply (segments with offsets), or undefined when it has none. */
export function keptForm(
  transcript: TranscriptResponse,
  video: { platform: string; videoId: string; url: string; title?: string | null },
): KeptTranscript | undefined {
  if (typeof transcript.content === 'string' || transcript.translatedTo) return undefined;
  const segments = (transcript.content as TranscriptSegment[])
    .filter((s) => s.offset !== undefined)
    .map((s) => ({ text: s.text, offset: s.offset!, duration: s.duration ?? 0, ...(s.speaker ? { speaker: s.speaker } : {}) }));
  if (segments.length === 0) return undefined;
  return {
    platform: video.platform,
    videoId: video.videoId,
    url: video.url,
    ...(video.title ? { title: video.title } : {}),
    lang: transcript.lang,
    aiGenerated: transcript.aiGenerated,
    durationSeconds: Math.round(transcript.durationMinutes * 60),
    segments,
    ...(transcript.chapters?.length ? { chapters: transcript.chapters } : {}),
    keptAt: new Date().toISOString(),
  };
}

/** Keeps a transcript just fetched, when keeping is on; `asked` is the language the caller asked for. */
export async function keepFetched(ctx: KeepContext, kept: KeptTranscript | undefined, asked: string | undefined): Promise<void> {
  const store = keptTranscripts(ctx.services);
  if (!kept || !store.enabled) return;
  try {
    await store.keep(kept, asked);
  } catch (error) {
    ctx.log?.warn({ err: error, platform: kept.platform }, 'could not keep a transcript');
  }
}
