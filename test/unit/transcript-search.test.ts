/** The parts of transcript_search and of chapter ranges that need no server: query parsing, ranking, keys, links, chapters. */
import { describe, expect, it } from 'vitest';
import { parseQuery, TranscriptIndex } from '../../src/operations/transcript-index.js';
import { deepLink } from '../../src/operations/transcript-search.js';
import { keptTranscriptKey, type KeptTranscript } from '../../src/store/kept-transcripts.js';
import { chapterRange } from '../../src/surfaces/mcp/chapter-range.js';
import { GleanerError } from '../../src/errors.js';

const video = (videoId: string, lines: string[]): KeptTranscript => ({
  platform: 'youtube',
  videoId,
  url: `https://www.youtube.com/watch?v=${videoId}`,
  lang: 'en',
  aiGenerated: false,
  durationSeconds: lines.length * 5,
  segments: lines.map((text, i) => ({ text, offset: i * 5000, duration: 5000 })),
  keptAt: new Date().toISOString(),
});

describe('transcript search', () => {
  it('parses words, "phrases" and prefix*', () => {
    expect(parseQuery('solar "Wind Farm" turb* energy')).toEqual({ words: ['solar', 'energy'], prefixes: ['turb'], phrases: [['wind', 'farm']] });
    expect(parseQuery('""  *')).toEqual({ words: [], prefixes: [], phrases: [] });
  });

  it('ranks by BM25 over stems, checks phrases on the text, and finds the line of the hit', () => {
    const index = new TranscriptIndex();
    const filler = Array.from({ length: 40 }, (_, i) => `nothing much happens in line ${i} of this talk`);
    const a = [...filler];
    a[25] = 'the wind farms were running at night';
    const b = [...filler];
    b[7] = 'wind and a farm, but not a wind farm';
    b[30] = 'farming the wind is hard';
    index.add('a', video('aaaaaaaaaaa', a), Date.now() + 60_000);
    index.add('b', video('bbbbbbbbbbb', b), Date.now() + 60_000);
    const both = new Set(['a', 'b']);
    const phrase = index.query(parseQuery('"wind farms"'), both, 10);
    expect(phrase.map((hit) => [hit.transcript.videoId, hit.line])).toEqual([['aaaaaaaaaaa', 25]]);
    // Stemmed: "farms" finds "farm" and "farming"; only the named videos are scored.
    const stemmed = index.query(parseQuery('farms'), new Set(['b']), 10);
    expect(stemmed.map((hit) => hit.line).sort((x, y) => x - y)).toEqual([7, 30]);
    expect(index.query(parseQuery('runn*'), both, 10).map((hit) => hit.line)).toEqual([25]);
    expect(index.query(parseQuery('"farm wind"'), both, 10)).toEqual([]);
    // An expired transcript leaves the index.
    index.add('c', video('ccccccccccc', a), Date.now() - 1);
    expect(index.has('c')).toBe(false);
  });

  it('keeps store keys bounded whatever the caller sends', () => {
    expect(keptTranscriptKey('youtube', 'dQw4w9WgXcQ', 'en')).toBe('kept:transcript:youtube:dQw4w9WgXcQ:en');
    expect(keptTranscriptKey('youtube', 'dQw4w9WgXcQ', undefined)).toBe('kept:transcript:youtube:dQw4w9WgXcQ:any');
    const long = keptTranscriptKey('video', `https://example.org/${'x'.repeat(5000)}.mp4?token=secret`, 'pt_BR');
    expect(long.length).toBeLessThan(120);
    expect(long).not.toContain('secret');
    expect(long.endsWith(':pt-br')).toBe(true);
  });

  it('links to the second: YouTube t=, a media fragment elsewhere', () => {
    expect(deepLink({ platform: 'youtube', videoId: 'dQw4w9WgXcQ', url: '' }, 754)).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=754');
    expect(deepLink({ platform: 'video', videoId: 'x', url: 'https://cdn.example.org/talk.mp4#old' }, 61)).toBe('https://cdn.example.org/talk.mp4#t=61');
  });
});

describe('chapter ranges', () => {
  const chapters = [
    { title: 'Intro', start: 0 },
    { title: 'The problem', start: 60 },
    { title: 'A solution', start: 200 },
    { title: 'Questions', start: 400 },
  ];
  it('takes a number, "chapter n", "#n" or a title; a chapter alone is that chapter', () => {
    for (const from of ['3', 'chapter 3', 'Chapter 3', '#3', 'a solution', 'solution']) expect(chapterRange({ from }, chapters)).toEqual({ from: 200, to: 400 });
    expect(chapterRange({ from: 'chapter 4' }, chapters)).toEqual({ from: 400, to: undefined });
    expect(chapterRange({ from: 2, to: 'chapter 3' }, chapters)).toEqual({ from: 2, to: 400 });
    expect(chapterRange({ from: 'chapter 2', to: 300 }, chapters)).toEqual({ from: 60, to: 300 });
  });

  it('refuses a chapter the video lacks, an ambiguous title and a backward range, naming the chapters', () => {
    const refusal = (range: Parameters<typeof chapterRange>[0], list = chapters) => {
      try {
        chapterRange(range, list);
      } catch (error) {
        expect(error).toBeInstanceOf(GleanerError);
        return (error as GleanerError).message;
      }
      throw new Error('not refused');
    };
    expect(refusal({ from: 'chapter 5' })).toContain('chapters 1 to 4');
    expect(refusal({ from: 'Outro' })).toContain('1. Intro; 2. The problem');
    expect(refusal({ from: 'o' })).toContain('matches');
    expect(refusal({ from: 'chapter 3', to: 'chapter 1' })).toContain('to must come after from');
    expect(refusal({ from: 'chapter 1' }, [])).toContain('no chapters');
  });
});

describe('transcript search scores (issue 39)', () => {
  it('depend on the named videos only: another key indexing more transcripts moves neither a score nor the order', () => {
    const index = new TranscriptIndex();
    const filler = Array.from({ length: 30 }, (_, i) => `an ordinary sentence number ${i} about the weather`);
    const mine = [...filler];
    mine[3] = 'the solar panels on the roof';
    mine[20] = 'solar power and solar panels, solar everywhere';
    const other = [...filler];
    other[10] = 'the panels were cheap';
    index.add('mine', video('mmmmmmmmmmm', mine), Date.now() + 60_000);
    index.add('mine2', video('nnnnnnnnnnn', other), Date.now() + 60_000);
    const named = new Set(['mine', 'mine2']);
    const ranked = () => index.query(parseQuery('solar panel* weather'), named, 10).map((hit) => [hit.transcript.videoId, hit.line, hit.score]);
    const before = ranked();
    expect(before.length).toBeGreaterThan(1);
    // Another key's transcripts, full of the same words, join the process's index.
    for (let i = 0; i < 40; i++) {
      index.add(`theirs-${i}`, video(`t${String(i).padStart(10, '0')}`, Array.from({ length: 30 }, (_, j) => (j % 3 === 0 ? 'solar solar panels weather' : `other words ${j}`))), Date.now() + 60_000);
    }
    expect(ranked()).toEqual(before);
  });
});
