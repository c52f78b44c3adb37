/**
 * Kept transcripts: every transcript Gleaner fetches is kept in the store for GLEANER_KEEP_TRANSCRIPTS_DAYS
 * (0: none), so transcript_search (and watches) never fetch or charge the same one twice meanwhile. One
 * record per platform, video and language, under a bounded key; the language a caller asked for (or
 * none) names the record through a short alias when the transcript came in another language.
 * Works on either store (SQLite or Redis): plain values with a time to live.
 */
import { createHash } from 'node:crypto';
import type { Chapter } from '../model/content.js';
import type { Store } from './store.js';

export interface KeptSegment {
  text: string;
  /** Start and length in milliseconds. */
  offset: number;
  duration: number;
  speaker?: string;
}

export interface KeptTranscript {
  platform: string;
  videoId: string;
  /** The video's URL as it was fetched. */
  url: string;
  title?: string;
  lang: string;
  aiGenerated: boolean;
  durationSeconds: number;
  segments: KeptSegment[];
  chapters?: Chapter[];
  /** When it was kept (ISO). */
  keptAt: string;
}

/** The key part for no language preference: any kept language serves such a search. */
const ANY = 'any';
const DAY_MS = 24 * 60 * 60 * 1000;

/** A key part from caller input: kept as it is when short and plain, else a hash (keys stay bounded). */
function part(value: string, plain: RegExp): string {
  return plain.test(value) ? value : `h${createHash('sha256').update(value).digest('hex').slice(0, 32)}`;
}

export function keptTranscriptKey(platform: string, videoId: string, lang: string | undefined): string {
  const language = lang ? lang.toLowerCase().replace('_', '-') : ANY;
  return `kept:transcript:${part(platform, /^[a-z]{1,20}$/)}:${part(videoId, /^[A-Za-z0-9_-]{1,64}$/)}:${part(language, /^[a-z0-9-]{1,20}$/)}`;
}

export class KeptTranscripts {
  constructor(
    private readonly store: Store,
    /** GLEANER_KEEP_TRANSCRIPTS_DAYS. */
    readonly days: number,
  ) {}

  get enabled(): boolean {
    return this.days > 0;
  }

  get ttlMs(): number {
    return Math.round(this.days * DAY_MS);
  }

  /**
   * Keeps a transcript under its own language, and names it from the language the caller asked for
   * (or from "any language" when none was asked and none is kept yet).
   */
  async keep(transcript: KeptTranscript, asked: string | undefined): Promise<void> {
    if (!this.enabled || transcript.segments.length === 0) return;
    const own = keptTranscriptKey(transcript.platform, transcript.videoId, transcript.lang);
    await this.store.set(own, transcript, this.ttlMs);
    const aliases = [keptTranscriptKey(transcript.platform, transcript.videoId, asked), keptTranscriptKey(transcript.platform, transcript.videoId, undefined)];
    for (const alias of new Set(aliases)) {
      if (alias === own) continue;
      if (alias.endsWith(`:${ANY}`) && asked !== undefined && (await this.store.get(alias)) !== undefined) continue;
      await this.store.set(alias, own, this.ttlMs);
    }
  }

  /** The kept transcript of a video in a language (or in any language), if there is one. */
  async find(platform: string, videoId: string, lang: string | undefined): Promise<KeptTranscript | undefined> {
    if (!this.enabled) return undefined;
    const found = await this.store.get<KeptTranscript | string>(keptTranscriptKey(platform, videoId, lang));
    if (typeof found !== 'string') return found;
    return this.store.get<KeptTranscript>(found);
  }
}
