/**
 * transcript_search over 1,000 kept transcripts (about 30 M characters, issue 30): generated speech-like
 * text (a Zipf-distributed vocabulary of 20,000 words behind the 120 commonest English ones, a line of
 * 7 to 16 words every 4 s, 30 minutes a video), kept through KeptTranscripts in a real SQLite store.
 * Prints: the time to load them all from the store and index them (a cold process's first search), the
 * latency of a search over all 1,000 (p50, p95, max of 200 queries of five kinds), and the memory of the
 * index (heap after the index is built, less the heap holding the transcripts). For the choice of
 * library, the same passages in SQLite FTS5 (node-sqlite3-wasm, porter tokenizer, bm25 order) are timed
 * too. Asserts nothing. `npx tsx bench/transcript-search.ts` runs it alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { openStore } from '../src/store/store.js';
import { KeptTranscripts, keptTranscriptKey, type KeptTranscript } from '../src/store/kept-transcripts.js';
import { parseQuery, TranscriptIndex } from '../src/operations/transcript-index.js';

const VIDEOS = Number(process.env.BENCH_SEARCH_VIDEOS ?? 1000);
const LINES = 450;
const QUERIES = 200;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heapMb = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};

/** A small deterministic generator (mulberry32), so every run searches the same text. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = (
  'the of and to a in is you that it he was for on are as with his they i at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part'
).split(' ');
const SYLLABLES = 'ba be bi bo bu ka ke ki ko ku ra re ri ro ru ta te ti to tu la le li lo lu ma me mi mo mu na ne ni no nu sa se si so su va ve vi vo vu pra tre sti glo fen dar mor lin cas ver pol'.split(' ');

function vocabulary(rand: () => number): string[] {
  const words = new Set<string>();
  while (words.size < 20_000) {
    const n = 2 + Math.floor(rand() * 3);
    words.add(Array.from({ length: n }, () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)]).join(''));
  }
  return [...COMMON, ...words];
}

/** Zipf(1) over the vocabulary: a word's chance falls with its rank, as in speech. */
function zipfPicker(size: number, rand: () => number): () => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let i = 0; i < size; i++) cumulative[i] = total += 1 / (i + 1);
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

function generate(): { transcripts: KeptTranscript[]; words: string[]; chars: number } {
  const rand = random(30);
  const words = vocabulary(rand);
  const pick = zipfPicker(words.length, rand);
  let chars = 0;
  const transcripts = Array.from({ length: VIDEOS }, (_, v) => {
    const segments = Array.from({ length: LINES }, (_, i) => {
      const text = Array.from({ length: 7 + Math.floor(rand() * 10) }, () => words[pick()]).join(' ');
      chars += text.length;
      return { text, offset: i * 4000, duration: 4000 };
    });
    return { platform: 'youtube', videoId: `bench${String(v).padStart(6, '0')}`, url: '', title: `Video ${v}`, lang: 'en', aiGenerated: false, durationSeconds: LINES * 4, segments, keptAt: new Date().toISOString() };
  });
  return { transcripts, words, chars };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

function queries(words: string[]): string[] {
  const rand = random(7);
  const word = (from: number, to: number) => words[from + Math.floor(rand() * (to - from))];
  const kinds = [
    () => word(120, 2_000), // one fairly common word
    () => `${word(120, 5_000)} ${word(2_000, 20_000)}`, // two words, one rare
    () => `${word(0, 120)} ${word(120, 1_000)} ${word(1_000, 20_000)}`, // three, one a stop word
    () => `"${word(120, 3_000)} ${word(120, 3_000)}"`, // a phrase (rarely said as such)
    () => `${word(500, 20_000).slice(0, 4)}*`, // a prefix
  ];
  return Array.from({ length: QUERIES }, (_, i) => kinds[i % kinds.length]());
}

interface Latency {
  p50: number;
  p95: number;
  max: number;
  /** The same in CPU time of this process: steadier than the wall clock on a shared, busy machine. */
  cpu50: number;
  cpu95: number;
}

function latency(run: (query: string) => unknown, list: string[]): Latency {
  for (const query of list.slice(0, 10)) run(query); // warm-up
  const wall: number[] = [];
  const cpu: number[] = [];
  for (const query of list) {
    const used = process.cpuUsage();
    const started = performance.now();
    run(query);
    wall.push(performance.now() - started);
    const { user, system } = process.cpuUsage(used);
    cpu.push((user + system) / 1000);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(wall, 50), p95: percentile(wall, 95), max: wall.at(-1)!, cpu50: percentile(cpu, 50), cpu95: percentile(cpu, 95) };
}

const fmt = (t: Latency) => `wall p50 ${t.p50.toFixed(1)} ms, p95 ${t.p95.toFixed(1)} ms, max ${t.max.toFixed(1)} ms; CPU p50 ${t.cpu50.toFixed(1)} ms, p95 ${t.cpu95.toFixed(1)} ms`;

export async function benchTranscriptSearch(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-bench-search-'));
  const store = await openStore({ dataDir: dir });
  try {
    const kept = new KeptTranscripts(store, 30);
    let { transcripts, words, chars } = generate();
    for (let i = 0; i < transcripts.length; i += 50) await Promise.all(transcripts.slice(i, i + 50).map((t) => kept.keep(t, undefined)));
    const ids = transcripts.map((t) => t.videoId);
    transcripts = [];
    console.log(`transcript_search (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores): ${VIDEOS} kept transcripts, ${(chars / 1e6).toFixed(1)} M characters, ${VIDEOS * LINES} lines (SQLite store)`);

    // A cold process's first search: every transcript read from the store and indexed.
    const base = heapMb();
    let started = performance.now();
    const loaded: KeptTranscript[] = [];
    for (let i = 0; i < ids.length; i += 50) loaded.push(...((await Promise.all(ids.slice(i, i + 50).map((id) => kept.find('youtube', id, undefined)))) as KeptTranscript[]));
    const readMs = performance.now() - started;
    const withTranscripts = heapMb();
    started = performance.now();
    const indexCpu = process.cpuUsage();
    const index = new TranscriptIndex();
    const keys = new Set<string>();
    for (const transcript of loaded) {
      const key = keptTranscriptKey('youtube', transcript.videoId, undefined);
      index.add(key, transcript, Date.now() + 86_400_000);
      keys.add(key);
    }
    const indexMs = performance.now() - started;
    const { user, system } = process.cpuUsage(indexCpu);
    const withIndex = heapMb();
    console.log(
      `  cold start: read from the store ${(readMs / 1000).toFixed(1)} s, indexed in ${(indexMs / 1000).toFixed(1)} s (${((user + system) / 1e6).toFixed(1)} s CPU; ${index.size.passages.toLocaleString('en-US')} passages)`,
    );
    console.log(`  memory: transcripts ${(withTranscripts - base).toFixed(0)} MB, index ${(withIndex - withTranscripts).toFixed(0)} MB (heap, after GC)`);

    const list = queries(words);
    // What a search does once its videos are indexed: check each is still kept, then rank.
    const search = (query: string) => {
      for (const key of keys) index.has(key);
      return index.query(parseQuery(query), keys, 10);
    };
    const hits = list.map((query) => search(query).length);
    console.log(`  search over all ${VIDEOS} (MiniSearch): ${fmt(latency(search, list))}; ${hits.filter((n) => n > 0).length} of ${QUERIES} queries found passages`);
    const fifty = new Set([...keys].slice(0, 50));
    console.log(`  search over 50 of them (one channel's page): ${fmt(latency((query) => index.query(parseQuery(query), fifty, 10), list))}`);

    benchFts5(loaded, list);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The same passages (about 400 characters) in SQLite FTS5 in memory, ranked by bm25: for the choice of library. */
function benchFts5(transcripts: KeptTranscript[], list: string[]): void {
  const require = createRequire(import.meta.url);
  const { Database } = require('node-sqlite3-wasm') as typeof import('node-sqlite3-wasm');
  const db = new Database(':memory:');
  try {
    db.exec("CREATE VIRTUAL TABLE passages USING fts5(text, video UNINDEXED, tokenize = 'porter unicode61')");
    const started = performance.now();
    db.exec('BEGIN');
    const insert = db.prepare('INSERT INTO passages (text, video) VALUES (?, ?)');
    for (const transcript of transcripts) {
      let text = '';
      for (const segment of transcript.segments) {
        text += `${segment.text} `;
        if (text.length >= 400) {
          insert.run([text, transcript.videoId]);
          text = '';
        }
      }
      if (text) insert.run([text, transcript.videoId]);
    }
    insert.finalize();
    db.exec('COMMIT');
    const indexMs = performance.now() - started;
    const select = db.prepare('SELECT video, bm25(passages) AS score FROM passages WHERE passages MATCH ? ORDER BY score LIMIT 10');
    // FTS5's own syntax: words OR'ed, a "phrase" as is, prefix* as is.
    const match = (query: string) => {
      const parsed = parseQuery(query);
      const parts = [...parsed.words.map((w) => `"${w}"`), ...parsed.prefixes.map((p) => `"${p}"*`), ...parsed.phrases.map((p) => `"${p.join(' ')}"`)];
      return select.all([parts.join(parsed.phrases.length ? ' AND ' : ' OR ')]);
    };
    console.log(`  SQLite FTS5 (wasm, in memory) for comparison: indexed in ${(indexMs / 1000).toFixed(1)} s; search ${fmt(latency(match, list))}`);
    select.finalize();
  } finally {
    db.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTranscriptSearch();
