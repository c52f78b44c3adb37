/**
 * The intro between a page's title and Readability's article (src/web/article-intro.ts): a guide
 * whose two intro paragraphs sit in a hero block of their own, before the body's wrapper, keeps them;
 * a block of links there (a table of contents) and a box after the article do not come in.
 */
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/web/extract.js';

const INTRO = [
  'How a restaurant serves its guests often matters as much as what it serves, since the service sets expectations before the first bite.',
  'This guide walks through the service styles in use today, from counter service to fine dining, and what each one asks of the staff.',
];
const BODY = Array.from(
  { length: 8 },
  (_, i) =>
    `Section ${i + 1}: the chosen service style has to match the menu, the prices and the room, and it decides, more than the decor does, how long guests stay, how often they return, and what they tell their friends.`,
);
const TOC = ['Why service matters', 'Counter service', 'Table service', 'Fine dining', 'Buffets', 'Food trucks', 'Ghost kitchens', 'Conclusion'];

/** The body nested in a layout with a side column (so Readability's block is the body's wrapper, not the page). */
const page = (between: string, after = '') =>
  `<html><head><title>Service styles</title></head><body><header><nav><a href="/">Home</a> <a href="/blog">Blog</a></nav></header>` +
  `<div class="page"><div class="hero"><h1>Types of restaurant service</h1></div>${between}` +
  `<div class="layout"><div class="col"><div class="wrap"><div class="post-body">${BODY.map((p) => `<p>${p}</p>`).join('')}</div>` +
  `<div class="share"><a href="/share">Share</a></div></div></div><div class="side"><a href="/other">Other guides</a></div></div>${after}</div></body></html>`;
const text = (html: string) => extractPage(html, { url: 'https://food.example/service', format: 'text', onlyMainContent: true }).content;

describe('the intro between the title and the article', () => {
  it('intro paragraphs in a block of their own before the body are kept, in order', () => {
    const out = text(page(`<section class="intro"><div class="inner">${INTRO.map((p) => `<p>${p}</p>`).join('')}</div></section>`));
    for (const paragraph of [...INTRO, ...BODY]) expect(out).toContain(paragraph);
    expect(out.indexOf(INTRO[0])).toBeLessThan(out.indexOf(BODY[0]));
  });

  it('a table of contents there is not prose and stays out; a box after the article is not an intro', () => {
    const toc = `<div class="toc"><p>Contents</p><ul>${TOC.map((t, i) => `<li><a href="#s${i}">${t}</a></li>`).join('')}</ul></div>`;
    const after = `<section class="outro"><p>${INTRO[1]}</p><p>${INTRO[0]}</p></section>`;
    const out = text(page(toc, after));
    for (const paragraph of BODY) expect(out).toContain(paragraph);
    for (const entry of TOC) expect(out).not.toContain(entry);
    for (const paragraph of INTRO) expect(out).not.toContain(paragraph);
  });
});
