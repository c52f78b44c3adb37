/**
 * A box of other stories that closes an article, told by its heading when its class names say nothing
 * ("You may also like", "Recommended Reading", "More from …" over cards of a title and a teaser): the
 * heading and the cards go; the same heading with the article going on after it stays.
 */
import { describe, expect, it } from 'vitest';
import { parseDocument, type DomElement } from '../../src/web/dom.js';
import { cleanArticle } from '../../src/web/clean-article.js';
import { extractPage } from '../../src/web/extract.js';

const PARAGRAPHS = [
  'The harbour wall, built in 1820 from granite quarried on the island, held through every winter storm until the great gale of 1953 broke it in two places.',
  'Engineers from the mainland arrived a week later and found the foundations sound; it was the upper courses, laid in a hurry in the last summer of the works, that had given way.',
  'The repair took two summers and most of the island’s men, and the cost was met in the end by a fund raised in the fishing ports of the north.',
  'Today the wall carries a walkway and a plaque naming the men who rebuilt it, and the lifeboat station at its end is the busiest on the coast.',
];
const CARDS = [
  ['How the lifeboat station was built', 'The station at the end of the wall opened in 1961, after a decade of fundraising in the north.'],
  ['The quarry that gave the granite', 'Closed in 1971, the quarry is a nature reserve now, mostly nesting seabirds in spring.'],
  ['A walk along the harbour', 'Our guide to the walkway, the plaque and the best places to watch the ferries come in.'],
];
/** The article, long enough that the cards are a small part of it (a box of other stories closes a longer text). */
const BODY = [0, 1, 2].map((round) => PARAGRAPHS.map((p) => `<p>${round ? `In the ${round === 1 ? 'second' : 'third'} account: ` : ''}${p}</p>`).join('')).join('');
const cards = `<div class="grid gap-4">${CARDS.map(([title, teaser]) => `<div class="card"><img src="/i.jpg" alt=""><div class="card-body"><h3>${title}</h3><p>${teaser}</p></div></div>`).join('')}</div>`;

function cleaned(inner: string): string {
  const doc = parseDocument(`<html><body><article id="a">${inner}</article></body></html>`);
  const root = doc.querySelector('#a') as DomElement;
  cleanArticle(root);
  return (root.textContent ?? '').replace(/\s+/g, ' ');
}

describe('boxes of other stories told by their heading', () => {
  it('a "Recommended Reading" heading and the cards after it go when they close the article', () => {
    const text = cleaned(`<div class="body">${BODY}</div><h2 class="mb-6 text-center">Recommended Reading</h2>${cards}`);
    for (const paragraph of PARAGRAPHS) expect(text).toContain(paragraph);
    expect(text).not.toContain('Recommended Reading');
    for (const [title, teaser] of CARDS) {
      expect(text).not.toContain(title);
      expect(text).not.toContain(teaser);
    }
  });

  it('the same heading with most of the article after it stays (a box that does not close the article)', () => {
    const text = cleaned(`<p>${PARAGRAPHS[0]}</p><h2>More from the island</h2><div>${PARAGRAPHS.slice(1).map((p) => `<p>${p}</p>`).join('')}</div>`);
    for (const paragraph of PARAGRAPHS) expect(text).toContain(paragraph);
    expect(text).toContain('More from the island');
  });

  it('through the whole extraction: "You may also like" and its cards go, the post stays', () => {
    const html = `<html><head><title>The harbour wall</title></head><body><main><article><h1>The harbour wall</h1>${BODY}<section class="mt-8"><h3>You may also like</h3>${cards}</section></article></main></body></html>`;
    const text = extractPage(html, { url: 'https://paper.example/wall', format: 'text', onlyMainContent: true }).content;
    for (const paragraph of PARAGRAPHS) expect(text).toContain(paragraph);
    expect(text).not.toContain('You may also like');
    for (const [, teaser] of CARDS) expect(text).not.toContain(teaser);
  });
});
