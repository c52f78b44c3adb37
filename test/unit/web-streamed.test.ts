/**
 * Pages streamed by React's server rendering (src/web/streamed.ts): the sections sent late, in hidden
 * `<div id="S:…">` blocks at the end of the document, are read in their place, as a browser's scripts
 * put them, over the "Loading…" fallback; moves written as data attributes count too; a page whose moves
 * make no sense (a part moved into itself, an unknown id) is read as it came.
 */
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/web/extract.js';

const SECTIONS = [
  ['Why the harbour wall failed', 'The old wall was built of concrete poured in winter, and the sea found every seam in it within twenty years of the opening.'],
  ['What the engineers proposed', 'Granite blocks from the old quarry, laid dry and pinned, the way the first wall of the harbour had been built two centuries before.'],
  ['What it will cost the town', 'The council put the cost at four million pounds, half of it from the coastal fund, and the rest spread over thirty years of rates.'],
  ['When the work begins', 'The first blocks arrive in the spring; the boats move to the outer pier for the two summers the work is expected to take.'],
];
const section = ([heading, body]: string[]) => `<h2>${heading}</h2><p>${body}</p>`;
const LOADING = '<div class="skeleton">Loading paragraph...</div>';

const markdown = (html: string) => extractPage(html, { url: 'https://news.example/wall', format: 'markdown', onlyMainContent: true }).content;
const page = (article: string, tail: string) =>
  `<!DOCTYPE html><html><head><title>The wall</title></head><body><header><nav><a href="/">News</a></nav></header><main><article><h1>The harbour wall</h1>${article}</article></main><footer><p>The Harbour News</p></footer>${tail}</body></html>`;

describe("a page streamed by React's server rendering", () => {
  it('reads the sections sent late in their place, in order, without the fallback', () => {
    const [first, second, third, fourth] = SECTIONS;
    const article = `${section(first)}<!--$?--><template id="B:0"></template>${LOADING}<!--/$-->${section(fourth)}`;
    // The boundary's content holds a placeholder filled by a segment sent after it.
    const tail = `<div hidden id="S:0">${section(second)}<template id="P:1"></template></div><script>$RC("B:0","S:0")</script><div hidden id="S:1">${section(third)}</div><script>$RS("S:1","P:1")</script>`;
    const out = markdown(page(article, tail));
    const at = SECTIONS.map(([heading, body]) => [out.indexOf(heading), out.indexOf(body)]);
    for (const [heading, body] of at) {
      expect(heading).toBeGreaterThanOrEqual(0);
      expect(body).toBeGreaterThan(heading);
    }
    expect(at.map(([heading]) => heading)).toEqual([...at.map(([heading]) => heading)].sort((a, b) => a - b));
    expect(out).not.toContain('Loading paragraph');
  });

  it('reads moves written as data attributes (React runtime loaded as a file)', () => {
    const [first, second, third] = SECTIONS;
    const article = `${section(first)}<!--$?--><template id="B:2"></template>${LOADING}<!--/$-->`;
    const tail = `<div hidden id="S:2">${section(second)}${section(third)}</div><template data-rci="" data-bid="B:2" data-sid="S:2"></template>`;
    const out = markdown(page(article, tail));
    expect(out).toContain(second[1]);
    expect(out).toContain(third[1]);
    expect(out.indexOf(second[1])).toBeGreaterThan(out.indexOf(first[1]));
    expect(out).not.toContain('Loading paragraph');
  });

  it('leaves a page whose moves make no sense as it came: a part moved into itself, ids that are not there', () => {
    const [first, second] = SECTIONS;
    const article = `${section(first)}${section(SECTIONS[3])}<!--$?--><template id="B:0"></template>${LOADING}<!--/$-->`;
    const tail = `<div hidden id="S:0">${section(second)}<template id="P:0"></template></div><script>$RS("S:0","P:0");$RC("B:9","S:0");$RS("S:7","P:3")</script>`;
    const out = markdown(page(article, tail));
    expect(out).toContain(first[1]);
  });
});
