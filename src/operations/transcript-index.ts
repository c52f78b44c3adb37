/**
 * The full-text index of transcript_search: MiniSearch (BM25+, prefix terms) over passages of kept
 * transcripts, English Porter stemming (`stemmer`) on index and query terms, phrases checked on the
 * passage text. A passage is a run of timed lines of about PASSAGE_CHARS, sharing its last line with the
 * next one so a phrase across a passage boundary is still found.
 *
 * One index per process holds the transcripts searched lately (up to MAX_INDEXED_CHARS, the least
 * recently searched dropped first); a search finds passages of only the videos it names (a filter), and
 * scores them with BM25+ statistics of those videos alone (passage counts, lengths, term frequencies
 * kept per video), so what other keys indexed never moves a caller's ranking. A transcript stays
 * indexed no longer than it is kept.
 * Why MiniSearch and not SQLite FTS5: docs/transcript-search.md.
 */
import MiniSearch, { type Query, type SearchResult } from 'minisearch';
import { stemmer } from 'stemmer';
import type { KeptTranscript } from '../store/kept-transcripts.js';

/** About how many characters a passage holds: a few lines, some 20 to 40 seconds of speech. */
const PASSAGE_CHARS = 400;
/** Text held by the process's index (about 300 MB of heap at 30 M, see the benchmark); beyond it the least recently searched transcripts leave. */
export const MAX_INDEXED_CHARS = 40_000_000;

/** Words as the index sees them: letters and digits of any script, apostrophes inside a word kept. */
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

function normalize(word: string): string {
  return word.toLowerCase().replace(/['’]/g, '');
}

/**
 * English words too common to rank by (Lucene's English stop set): left out of the index and of queries,
 * so a query that has them is not slowed by passing over every passage. A quoted phrase still matches
 * them, on the passage's text.
 */
const STOP_WORDS = new Set('a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '));

/** Stems already worked out: speech repeats its words, and the Porter stemmer is the costly step of indexing. */
const stems = new Map<string, string>();
const MAX_STEMS = 500_000;

/** A word as indexed: lower case, English-stemmed (other languages' words mostly pass unchanged); null for a stop word. */
export function indexTerm(word: string): string | null {
  const plain = normalize(word);
  if (STOP_WORDS.has(plain)) return null;
  let stem = stems.get(plain);
  if (stem === undefined) {
    stem = /^[a-z]+$/.test(plain) ? stemmer(plain) : plain;
    if (stems.size >= MAX_STEMS) stems.clear();
    stems.set(plain, stem);
  }
  return stem;
}

const tokenize = (text: string): string[] => text.match(WORD) ?? [];

export interface ParsedQuery {
  words: string[];
  /** Words typed with a trailing `*`. */
  prefixes: string[];
  /** Quoted phrases, each as its normalized words. */
  phrases: string[][];
}

/** `"exact words"` is a phrase, `word*` a prefix, anything else a word (BM25 ranks passages with more of them higher). */
export function parseQuery(query: string): ParsedQuery {
  const parsed: ParsedQuery = { words: [], prefixes: [], phrases: [] };
  const rest = query.replace(/"([^"]*)"/g, (_, phrase: string) => {
    const words = tokenize(phrase).map(normalize);
    if (words.length > 0) parsed.phrases.push(words);
    return ' ';
  });
  for (const raw of rest.split(/\s+/).filter(Boolean)) {
    const words = tokenize(raw);
    if (words.length === 0) continue;
    if (raw.endsWith('*')) {
      parsed.prefixes.push(normalize(words.at(-1)!));
      parsed.words.push(...words.slice(0, -1));
    } else parsed.words.push(...words);
  }
  return parsed;
}

interface Passage {
  video: string;
  /** Indexes of its first and last line in the video's segments. */
  first: number;
  last: number;
  /** Its words, as BM25 counts a document's length. */
  words: number;
}

interface Indexed {
  transcript: KeptTranscript;
  ids: number[];
  chars: number;
  /** Passages of this video holding each indexed term (its share of a search's document frequencies). */
  termPassages: Map<string, number>;
  words: number;
  /** The transcript leaves the index when its keeping ends. */
  expiresAt: number;
}

export interface PassageHit {
  transcript: KeptTranscript;
  /** The line where the hit is, and the lines shown around it. */
  line: number;
  lines: Array<{ offset: number; text: string }>;
  score: number;
}

/** Lines shown before and after the line of a hit. */
const AROUND = 2;

export class TranscriptIndex {
  private readonly search = new MiniSearch<{ id: number; text: string }>({
    fields: ['text'],
    tokenize,
    // A word whose stem differs is indexed as typed too, so a prefix (not stemmed) finds "running" from "runn*".
    processTerm: (term) => {
      const stem = indexTerm(term);
      const plain = normalize(term);
      return stem === null || stem === plain ? stem : [stem, plain];
    },
    searchOptions: { processTerm: (term) => indexTerm(term) },
    // Reclaims discarded passages in the background, in small batches.
    autoVacuum: { batchSize: 2_000, batchWait: 5, minDirtCount: 1_000, minDirtFactor: 0.2 },
  });
  private readonly passages = new Map<number, Passage>();
  /** Videos by key, in the order they were last searched (a Map keeps insertion order). */
  private readonly videos = new Map<string, Indexed>();
  private nextId = 0;
  private chars = 0;

  constructor(private readonly maxChars = MAX_INDEXED_CHARS) {}

  /** Whether the video is indexed and still kept; a yes marks it as just used. */
  has(key: string, now = Date.now()): boolean {
    const found = this.videos.get(key);
    if (!found) return false;
    if (found.expiresAt <= now) {
      this.remove(key);
      return false;
    }
    this.videos.delete(key);
    this.videos.set(key, found);
    return true;
  }

  get size(): { videos: number; passages: number; chars: number } {
    return { videos: this.videos.size, passages: this.passages.size, chars: this.chars };
  }

  add(key: string, transcript: KeptTranscript, expiresAt: number): void {
    if (this.videos.has(key)) this.remove(key);
    const documents: Array<{ id: number; text: string }> = [];
    const ids: number[] = [];
    const termPassages = new Map<string, number>();
    let chars = 0;
    let words = 0;
    const segments = transcript.segments;
    for (let first = 0; first < segments.length; ) {
      let last = first;
      let length = segments[first].text.length;
      while (last + 1 < segments.length && length < PASSAGE_CHARS) length += segments[++last].text.length + 1;
      // The next passage's first line is this one's last too (unless this is the video's end).
      const shared = Math.min(last + 1, segments.length - 1);
      const id = this.nextId++;
      const text = segments
        .slice(first, shared + 1)
        .map((s) => s.text)
        .join(' ');
      documents.push({ id, text });
      const counts = termCounts(text);
      for (const term of counts.terms.keys()) termPassages.set(term, (termPassages.get(term) ?? 0) + 1);
      words += counts.words;
      this.passages.set(id, { video: key, first, last: shared, words: counts.words });
      ids.push(id);
      chars += length;
      first = last + 1;
    }
    this.search.addAll(documents);
    this.videos.set(key, { transcript, ids, chars, termPassages, words, expiresAt });
    this.chars += chars;
    while (this.chars > this.maxChars && this.videos.size > 1) this.remove(this.videos.keys().next().value!);
  }

  private rescored(results: SearchResult[], query: ParsedQuery, videos: ReadonlySet<string>): SearchResult[] {
    return rescoreWith({ passages: this.passages, videos: this.videos }, results, query, videos);
  }

  remove(key: string): void {
    const found = this.videos.get(key);
    if (!found) return;
    for (const id of found.ids) {
      this.search.discard(id);
      this.passages.delete(id);
    }
    this.videos.delete(key);
    this.chars -= found.chars;
  }

  /**
   * The best passages of the named videos for a query, one hit per passage, best first; a hit within
   * the shown lines of a better one of the same video is left out.
   */
  query(query: ParsedQuery, videos: ReadonlySet<string>, limit: number): PassageHit[] {
    const parts: Query[] = [];
    if (query.words.length > 0) parts.push({ queries: [query.words.join(' ')], combineWith: 'OR' });
    for (const prefix of query.prefixes) parts.push({ queries: [prefix], prefix: true, combineWith: 'OR', processTerm: normalize });
    for (const phrase of query.phrases) parts.push({ queries: [phrase.join(' ')], combineWith: 'AND' });
    if (parts.length === 0) return [];
    const found = this.search.search(
      { queries: parts, combineWith: query.phrases.length > 0 ? 'AND' : 'OR' },
      { filter: (result) => videos.has(this.passages.get(result.id as number)?.video ?? '') },
    );
    const results = this.rescored(found, query, videos);
    const hits: PassageHit[] = [];
    const shown = new Map<string, Array<[number, number]>>();
    for (const result of results) {
      if (hits.length >= limit) break;
      const passage = this.passages.get(result.id as number);
      const indexed = passage && this.videos.get(passage.video);
      if (!passage || !indexed) continue;
      const line = hitLine(indexed.transcript, passage, query, result);
      if (line === undefined) continue;
      const spans = shown.get(passage.video) ?? [];
      if (spans.some(([from, to]) => line >= from && line <= to)) continue;
      const segments = indexed.transcript.segments;
      const from = Math.max(0, line - AROUND);
      const to = Math.min(segments.length - 1, line + AROUND);
      spans.push([from, to]);
      shown.set(passage.video, spans);
      hits.push({ transcript: indexed.transcript, line, lines: segments.slice(from, to + 1).map(({ offset, text }) => ({ offset, text })), score: result.score });
    }
    return hits;
  }
}

/** BM25+ as MiniSearch weighs it: term saturation k, length normalisation b, the + of BM25+ delta; a prefix expansion counts less. */
const BM25 = { k: 1.2, b: 0.7, delta: 0.5 };
const PREFIX_WEIGHT = 0.375;

/** A passage's indexed terms (stem and plain form, as the index holds them) with their counts, and its word count. */
function termCounts(text: string): { terms: Map<string, number>; words: number } {
  const terms = new Map<string, number>();
  const words = tokenize(text);
  for (const word of words) {
    const stem = indexTerm(word);
    if (stem === null) continue;
    terms.set(stem, (terms.get(stem) ?? 0) + 1);
    const plain = normalize(word);
    if (plain !== stem) terms.set(plain, (terms.get(plain) ?? 0) + 1);
  }
  return { terms, words: words.length };
}

/**
 * The index's matches scored again with the statistics of the named videos only (their passages, lengths and
 * term frequencies), best first: a caller's ranking depends on the caller's documents, not on what else the
 * process indexed for other keys.
 */
function rescoreWith(index: { passages: Map<number, Passage>; videos: Map<string, Indexed> }, results: SearchResult[], query: ParsedQuery, named: ReadonlySet<string>): SearchResult[] {
  const scope = [...named].flatMap((key) => index.videos.get(key) ?? []);
  const passages = scope.reduce((sum, video) => sum + video.ids.length, 0);
  if (passages === 0) return results;
  const averageWords = scope.reduce((sum, video) => sum + video.words, 0) / passages || 1;
  const exact = new Set([...query.words, ...query.phrases.flat()].flatMap((word) => [indexTerm(word), normalize(word)]).filter((term): term is string => term !== null));
  const idf = new Map<string, number>();
  const idfOf = (term: string) => {
    let value = idf.get(term);
    if (value === undefined) {
      const df = scope.reduce((sum, video) => sum + (video.termPassages.get(term) ?? 0), 0);
      value = Math.log(1 + (passages - df + 0.5) / (df + 0.5));
      idf.set(term, value);
    }
    return value;
  };
  const scored = results.map((result) => {
    const passage = index.passages.get(result.id as number);
    const video = passage && index.videos.get(passage.video);
    if (!passage || !video) return { ...result, score: 0 };
    const text = video.transcript.segments
      .slice(passage.first, passage.last + 1)
      .map((segment) => segment.text)
      .join(' ');
    const { terms } = termCounts(text);
    const norm = BM25.k * (1 - BM25.b + (BM25.b * passage.words) / averageWords);
    let score = 0;
    for (const term of new Set(result.terms)) {
      const tf = terms.get(term) ?? 0;
      if (tf === 0) continue;
      score += (exact.has(term) ? 1 : PREFIX_WEIGHT) * idfOf(term) * (BM25.delta + (tf * (BM25.k + 1)) / (tf + norm));
    }
    return { ...result, score };
  });
  return scored.sort((a, b) => b.score - a.score);
}

/**
 * The line of a passage where its hit is: where a phrase starts (undefined when the passage lacks a
 * phrase: the index matched its words apart), else the line with most of the matched terms.
 */
function hitLine(transcript: KeptTranscript, passage: Passage, query: ParsedQuery, result: SearchResult): number | undefined {
  const words: Array<{ word: string; line: number }> = [];
  for (let i = passage.first; i <= passage.last; i++) for (const word of tokenize(transcript.segments[i].text)) words.push({ word: normalize(word), line: i });
  let phraseLine: number | undefined;
  for (const phrase of query.phrases) {
    const at = words.findIndex((_, start) => phrase.every((word, k) => words[start + k]?.word === word));
    if (at < 0) return undefined;
    phraseLine ??= words[at].line;
  }
  if (phraseLine !== undefined) return phraseLine;
  const matched = new Set(result.terms);
  const counts = new Map<number, number>();
  for (const { word, line } of words) if (matched.has(word) || matched.has(indexTerm(word) ?? '')) counts.set(line, (counts.get(line) ?? 0) + 1);
  let best = passage.first;
  for (const [line, count] of counts) if (count > (counts.get(best) ?? 0)) best = line;
  return best;
}
