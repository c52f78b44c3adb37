/**
 * The page's declared main element over Readability's article (src/web/page-main.ts): a shop's page
 * whose content is a short intro and product cards inside `<main>`, beside a rewards box outside it
 * that has the longest paragraphs of the page (Readability picks the box), also when the page declares an
 * FAQ in JSON-LD (no discussion for that); and an article inside
 * `<main>` with a box of other stories after it, where Readability's article is kept; an error page's short
 * `<main>` against the footer's small print; the page's one declared article body against an article that
 * holds a run of it.
 */
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/web/extract.js';
import { parseDocument } from '../../src/web/dom.js';
import { bodyOverArticle } from '../../src/web/page-main.js';

const SHOES = [
  ['Classic Clog', 'Lightweight clog with a roomy fit and a ventilated upper for all-day wear.'],
  ['Classic Lined Clog', 'The same clog with a soft fuzzy lining that keeps your feet warm in winter.'],
  ['Classic Platform Clog', 'A lifted sole adds height to the clog shape that made the brand famous.'],
  ['Classic Sandal', 'An open sandal with the same cushioned footbed and a back strap that pivots.'],
];
const INTRO = 'Experience iconic comfort with our classic clogs, the timeless favourites that redefine casual footwear in every colour.';
const REWARDS = [
  'When you reach 100 points, you will automatically earn $5 in reward cash, which appears in your account within 72 hours, and once there, reward cash is good on any pair, even top brands, in stores, online, or through the app.',
  'Members earn 1 point per $1 spent, superstar members earn 1.5 points per $1 spent, and card holders earn an additional point per $1 spent on the card, at any store, online, or in the app.',
];

const text = (html: string) => extractPage(html, { url: 'https://shoes.example/clogs', format: 'text', onlyMainContent: true }).content;

describe("the page's main element over Readability's article", () => {
  it('a listing in <main> is the main text, not a box of long paragraphs outside it', () => {
    const cards = SHOES.map(([name, about]) => `<div class="product-tile"><h3>${name}</h3><p>${about}</p><span class="price">$49.99</span></div>`).join('');
    const rewards = `<div class="rewards-drawer"><h2>Rewards</h2>${REWARDS.map((p) => `<p>${p}</p>`).join('')}</div>`;
    const html = `<html><head><title>Clogs</title></head><body><header><a href="/">Shop</a></header><main><h1>Classic Clogs</h1><p>${INTRO}</p><div class="grid">${cards}</div></main>${rewards}<footer><p>Famous for shoes.</p></footer></body></html>`;
    const out = text(html);
    expect(out).toContain(INTRO);
    for (const [name, about] of SHOES) {
      expect(out).toContain(name);
      expect(out).toContain(about);
    }
    for (const paragraph of REWARDS) expect(out).not.toContain(paragraph);
  });

  it('a page that declares an FAQ (FAQPage with Question items in JSON-LD) is no discussion: the same listing is its main text', () => {
    const faq = JSON.stringify({
      '@context': 'https://schema.org',
      '@type': 'FAQPage',
      mainEntity: [{ '@type': 'Question', name: 'Do clogs run large?', acceptedAnswer: { '@type': 'Answer', text: 'Order your usual size.' } }],
    });
    const cards = SHOES.map(([name, about]) => `<div class="product-tile"><h3>${name}</h3><p>${about}</p></div>`).join('');
    const rewards = `<div class="rewards-drawer"><h2>Rewards</h2>${REWARDS.map((p) => `<p>${p}</p>`).join('')}</div>`;
    const html = `<html><head><title>Clogs</title><script type="application/ld+json">${faq}</script></head><body><main><h1>Classic Clogs</h1><p>${INTRO}</p><div class="grid">${cards}</div></main>${rewards}</body></html>`;
    const out = text(html);
    for (const [name, about] of SHOES) expect(out).toContain(about);
    for (const paragraph of REWARDS) expect(out).not.toContain(paragraph);
  });

  it('a listing whose items are links around a headline and a summary (cards) is the main text, each summary in it', () => {
    const stories = SHOES.map(([name, about]) => [`The ${name} is back`, `${about} It returns this week after a year away from the shelves.`]);
    const cards = [...stories, ...stories].map(([headline, summary], i) => `<a class="card" href="/story/${i}"><div class="media"><img src="/p${i}.jpg" alt=""></div><div><h3>${headline}</h3><p>${summary}</p></div></a>`).join('');
    const html = `<html><head><title>Shoe news</title></head><body><header><nav><a href="/">Home</a> <a href="/news">News</a></nav></header><main><h1>Shoe news</h1><section class="intro"><p>${INTRO}</p></section><section class="latest">${cards}</section></main></body></html>`;
    const page = extractPage(html, { url: 'https://shoes.example/news', format: 'markdown', onlyMainContent: true }).content;
    for (const [headline, summary] of stories) {
      expect(page).toContain(summary);
      expect(page).toContain(`[${headline}](https://shoes.example/story/`);
    }
  });

  it('a short article in <main> beside a grid of teaser cards stays the main text: cards count only beside no article', () => {
    const paragraphs = Array.from({ length: 4 }, (_, i) => `Part ${i + 1} of the essay: the summer I gave up on the band, I sold the records, kept the posters, and listened to nothing else for a year.`);
    const stories = Array.from({ length: 24 }, (_, i) => [`Other story ${i + 1}`, `A summary of the other story number ${i + 1}, long enough to read as a sentence of its own.`]);
    const cards = (from: number, to: number) =>
      stories.slice(from, to).map(([headline, summary], i) => `<a href="/other/${from + i}"><div><h3>${headline}</h3><p>${summary}</p></div></a>`).join('');
    const html = `<html><head><title>Essay</title></head><body><main><section class="highlights">${cards(0, 12)}</section><article><h1>The band</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</article><section class="more">${cards(12, 24)}</section></main></body></html>`;
    const out = text(html);
    for (const paragraph of paragraphs) expect(out).toContain(paragraph);
    for (const [, summary] of stories) expect(out).not.toContain(summary);
  });

  it('a long article outside <main> stays the main text when <main> holds only teasers of other posts', () => {
    const paragraphs = Array.from({ length: 20 }, (_, i) => `Step ${i + 1} of the guide: write for the people who search for you, answer the questions they ask, and keep each page about one thing only.`);
    const cards = [...SHOES, ...SHOES].map(([name, about], i) => `<div class="teaser"><h3><a href="/post/${i}">${name}</a></h3><p>${about}</p></div>`).join('');
    const html = `<html><head><title>Guide</title></head><body><div class="post"><h1>The guide</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</div><main><h2>Related articles</h2>${cards}</main></body></html>`;
    const out = text(html);
    for (const paragraph of paragraphs) expect(out).toContain(paragraph);
    for (const [, about] of SHOES) expect(out).not.toContain(about);
  });

  it('an article in <main> stays Readability\'s: the teasers after it do not come in', () => {
    const paragraphs = Array.from(
      { length: 6 },
      (_, i) => `Paragraph ${i + 1} of the report: the council met on Tuesday, heard the engineers, and voted, after a long debate, to rebuild the harbour wall in granite rather than concrete.`,
    );
    const teasers = ['The quarry that gave the granite is a reserve now.', 'How the lifeboat station was built in 1961.', 'A walk along the harbour, from the plaque to the pier.'];
    const html = `<html><head><title>Wall</title></head><body><main><article><h1>The wall</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</article><section class="more"><h2>Elsewhere</h2>${teasers.map((t) => `<div class="teaser"><h3>Story</h3><p>${t}</p></div>`).join('')}</section></main></body></html>`;
    const out = text(html);
    for (const paragraph of paragraphs) expect(out).toContain(paragraph);
    for (const teaser of teasers) expect(out).not.toContain(teaser);
  });

  it("an error page's short <main> is the main text, not the small print of the page's footer that Readability falls back on", () => {
    const smallPrint = [
      'By submitting this form, you agree to receive recurring automated promotional and personalized marketing text messages from the shop at the number used when signing up.',
      'Consent is not a condition of any purchase. Reply HELP for help and STOP to cancel. Message frequency varies, and message and data rates may apply to every one of them.',
      'Valid only on standard shipping with a maximum discount of fifty dollars within the contiguous states; excludes post office boxes and military addresses abroad.',
    ];
    const html = `<html><head><title>Not found</title></head><body><header><a href="/">Shop</a></header><main class="NotFound_container"><h1>404 Page Not Found</h1><p>The page you requested is either temporarily unavailable or no longer exists.</p><ul><li>Check your spelling and try again</li><li><a href="/">Go to the home page</a></li></ul></main><div class="Footer_wrapper"><div class="Footer_signup"><h3>Unlock free shipping</h3>${smallPrint.map((p) => `<p>${p}</p>`).join('')}</div></div></body></html>`;
    const out = text(html);
    expect(out).toContain('The page you requested is either temporarily unavailable or no longer exists.');
    for (const paragraph of smallPrint) expect(out).not.toContain(paragraph);
  });

  describe("the page's one declared article body over Readability's run of it", () => {
    const sections = Array.from({ length: 8 }, (_, i) => `<h2>Part ${i + 1}</h2><p>Part ${i + 1} of the guide: the council met on Tuesday, heard the engineers, and voted to rebuild the harbour wall in granite rather than concrete.</p>`);
    const page = (bodies: number) =>
      `<html><body><div class="wrap">${Array.from({ length: bodies }, () => `<div class="entry-content">${sections.join('<div class="ad-slot"></div>')}<div class="share"><a href="/s">Share</a></div></div>`).join('')}</div></body></html>`;
    /** Readability's article as a fragment holding the first `count` parts. */
    const articleOf = (count: number) => parseDocument(`<html><body><div id="article">${sections.slice(0, count).join('')}</div></body></html>`).querySelector('#article')!;

    it('is the main text when the article holds two parts of eight: every part in it', () => {
      const body = bodyOverArticle(parseDocument(page(1)), articleOf(2));
      expect(body).not.toBeNull();
      for (let i = 1; i <= 8; i++) expect(body!.textContent).toContain(`Part ${i} of the guide`);
    });

    it('is not, when the article holds most of it, or the page declares two bodies', () => {
      expect(bodyOverArticle(parseDocument(page(1)), articleOf(6))).toBeNull();
      expect(bodyOverArticle(parseDocument(page(2)), articleOf(2))).toBeNull();
    });
  });
});
