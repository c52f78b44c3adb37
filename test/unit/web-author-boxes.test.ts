/**
 * Author boxes without a box's name: a heading "About the Author" and the bio after it in its block, and a
 * third-person bio closing the article ("Jane Doe is a freelance travel writer ..."), go; the same words
 * inside the article, or a closing paragraph about something else, stay.
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
const BIO = 'Morag Flett is a freelance travel writer and the editor of Island Quarterly. She has written about the northern isles for twenty years and lives in Stromness.';
const article = PARAGRAPHS.map((p) => `<p>${p}</p>`).join('');

function cleaned(inner: string): string {
  const doc = parseDocument(`<html><body><article id="a">${inner}</article></body></html>`);
  const root = doc.querySelector('#a') as DomElement;
  cleanArticle(root);
  return (root.textContent ?? '').replace(/\s+/g, ' ');
}

describe('author boxes told by their words', () => {
  it('an "About the Author" heading and the bio after it in its box go, in an unnamed box', () => {
    const text = cleaned(`${article}<section class="my-12 border p-8"><h3 class="text-lg uppercase">About the Author</h3><div class="flex"><img alt="Morag Flett" src="/a.jpg"><div><div class="font-light">She has covered the islands since 2004 and edits the quarterly.</div></div></div></section>`);
    for (const paragraph of PARAGRAPHS) expect(text).toContain(paragraph);
    expect(text).not.toContain('About the Author');
    expect(text).not.toContain('covered the islands since 2004');
  });

  it('a third-person bio that closes the article goes; the same kind of sentence inside the article stays', () => {
    const inside = 'Ann Rendall was the editor of the island paper in 1953, and her account of the night is the one most often quoted.';
    const text = cleaned(`${article.replace('</p><p>Engineers', `</p><p>${inside}</p><p>Engineers`)}<p>${BIO}</p>`);
    for (const paragraph of [...PARAGRAPHS, inside]) expect(text).toContain(paragraph);
    expect(text).not.toContain('freelance travel writer');
    // Not closing the article: the bio of someone the article is about, with the article going on after it.
    const middle = cleaned(`<p>${PARAGRAPHS[0]}</p><p>${BIO}</p>${PARAGRAPHS.slice(1).map((p) => `<p>${p}</p>`).join('')}`);
    expect(middle).toContain('freelance travel writer');
  });

  it('through the whole extraction: the post stays, the author heading and bio go', () => {
    const html = `<html><head><title>The harbour wall</title></head><body><main><article><h1>The harbour wall</h1>${article}<section class="box"><h3>About the Author</h3><p>${BIO}</p></section></article></main></body></html>`;
    const text = extractPage(html, { url: 'https://paper.example/wall', format: 'text', onlyMainContent: true }).content;
    for (const paragraph of PARAGRAPHS) expect(text).toContain(paragraph);
    expect(text).not.toContain('About the Author');
    expect(text).not.toContain('freelance travel writer');
  });
});
