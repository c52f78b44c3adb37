/**
 * A job's result within its bounds (issue 39: a batch of 50 pages of 9 MB made one 470 MB record):
 * each long text at most `itemChars`, all of them within `totalChars`, short ones whole, and every
 * cut text saying so and how to read all of it.
 */
import { describe, expect, it } from 'vitest';
import { boundResult } from '../../src/jobs/result-bounds.js';

const texts = new Map<number, string>();
/** One string per length, shared: 50 pages of 9 MB are then 9 MB of memory. */
const text = (chars: number) => texts.get(chars) ?? texts.set(chars, 'x'.repeat(chars)).get(chars)!;
const page = (url: string, chars: number) => ({ url, page: { url, title: 'A page', content: text(chars), urls: [`${url}/next`] } });
const bounds = { itemChars: 50_000, totalChars: 200_000 };

describe('boundResult', () => {
  it('a result within the bounds is the same value, untouched', () => {
    const result = { results: [page('https://a.test', 40_000), page('https://b.test', 40_000)], creditsUsed: 2 };
    const bounded = boundResult(result, bounds);
    expect(bounded.cut).toBe(0);
    expect(bounded.result).toBe(result);
  });

  it('a text over the item bound is cut to it, with a marker that says how long it was and how to read it all', () => {
    const bounded = boundResult({ results: [page('https://a.test', 120_000)] }, bounds);
    const content = (bounded.result as any).results[0].page.content as string;
    expect(bounded.cut).toBe(1);
    expect(content.startsWith('x'.repeat(50_000))).toBe(true);
    expect(content.slice(50_000)).toMatch(/^\n\n\[Cut: this text has 120000 characters, and a job's result keeps 50000 of each\. Ask for this item alone \(web_scrape for a page\)/);
  });

  it('many long texts share the total: the longest are cut to one length, short ones and the rest of the result stay whole', () => {
    const results = [...Array.from({ length: 10 }, (_, i) => page(`https://big${i}.test`, 100_000)), page('https://small.test', 5_000)];
    const bounded = boundResult({ results, creditsUsed: 11, stats: { total: 11 } }, bounds);
    const out = bounded.result as any;
    expect(bounded.cut).toBe(10);
    const kept = out.results.map((item: any) => item.page.content.replace(/\n\n\[Cut:[^\]]*\]$/, '').length);
    expect(kept.slice(0, 10).every((length: number) => length === kept[0])).toBe(true);
    expect(kept.reduce((a: number, b: number) => a + b, 0)).toBeLessThanOrEqual(200_000);
    expect(kept[0]).toBeGreaterThan(19_000);
    expect(out.results[10].page.content).toBe('x'.repeat(5_000));
    expect(out.results[3].url).toBe('https://big3.test');
    expect(out.results[3].page.urls).toEqual(['https://big3.test/next']);
    expect(out).toMatchObject({ creditsUsed: 11, stats: { total: 11 } });
  });

  it('the whole reply of a batch of 50 pages of 9 MB stays within the default bounds', () => {
    const huge = { results: Array.from({ length: 50 }, (_, i) => page(`https://p${i}.test`, 9_000_000)) };
    const bounded = boundResult(huge, { itemChars: 1_000_000, totalChars: 10_000_000 });
    expect(JSON.stringify(bounded.result).length).toBeLessThan(10_100_000);
  });
});
