/**
 * The main-text levers of clean-article.ts, each pinned on a small article: figure captions and
 * photo credits out, link-dense blocks (menus, related stories, tag lists) out, short byline, date
 * and `time` blocks out; and, beside each, the real content that looks like them and stays.
 */
import { describe, expect, it } from 'vitest';
import { parseDocument, type DomElement } from '../../src/web/dom.js';
import { cleanArticle } from '../../src/web/clean-article.js';

const BODY = '<p>The harbour wall, built in 1820 from granite quarried on the island, held through every winter storm until the great gale of 1953 broke it in two places.</p>';

/** The article's text after cleaning, one line per block. */
function cleaned(inner: string): string {
  const doc = parseDocument(`<html><body><article id="a">${inner}</article></body></html>`);
  const root = doc.querySelector('#a') as DomElement;
  cleanArticle(root);
  return [...root.querySelectorAll('p, li, h2, h3, figcaption, div, span, td')]
    .filter((e) => !e.querySelector('p, li, div, h2, h3, td'))
    .map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

describe('captions and photo credits', () => {
  it('a figcaption and a caption-classed block go; the figure and its image stay', () => {
    const doc = parseDocument(`<html><body><article id="a">${BODY}<figure><img src="wall.jpg"><figcaption>The wall after the gale, seen from the north pier.</figcaption></figure><div class="image-caption">Repairs in 1954.</div></article></body></html>`);
    const root = doc.querySelector('#a') as DomElement;
    cleanArticle(root);
    expect(root.querySelector('figcaption')).toBeNull();
    expect(root.querySelector('img')).not.toBeNull();
    expect(root.textContent).not.toContain('Repairs in 1954');
    expect(root.textContent).toContain('The harbour wall');
  });

  it('credits written as text go: "Photo: …", "(AP Photo/…)", "Credit: …", "©"', () => {
    const text = cleaned(`${BODY}<p><span>Photo: Jane Moray</span></p><p>(AP Photo/David Zalubowski)</p><p><small>Credit: EPA</small></p><p>© Harbour Trust</p>`);
    expect(text).toBe(BODY.replace(/<\/?p>/g, ''));
  });

  it('a caption wrapper that holds the image stays, and a long paragraph that mentions a photo is text', () => {
    const long = 'The only picture of the old wall is a glass plate in the museum, and its label reads photo: unknown, because nobody recorded who carried the heavy camera up the cliff path in 1890.';
    const doc = parseDocument(`<html><body><article id="a">${BODY}<div class="caption-wrap"><img src="plate.jpg"></div><p>${long} ${long}</p></article></body></html>`);
    const root = doc.querySelector('#a') as DomElement;
    cleanArticle(root);
    expect(root.querySelector('img')).not.toBeNull();
    expect(root.textContent).toContain(long);
  });
});

describe('link-dense blocks', () => {
  it('a list of short links goes with its heading ("Related stories")', () => {
    const text = cleaned(`${BODY}<h3>Related stories</h3><ul><li><a href="/1">Gale of 1953</a></li><li><a href="/2">New pier opens</a></li><li><a href="/3">Island ferry timetable</a></li></ul>`);
    expect(text).not.toContain('Related stories');
    expect(text).not.toContain('Gale of 1953');
    expect(text).toContain('The harbour wall');
  });

  it('a short block mostly of links goes (a tag line, a menu)', () => {
    const text = cleaned(`${BODY}<div><a href="/t/harbour">harbour</a>, <a href="/t/storms">storms</a>, <a href="/t/history">history</a></div>`);
    expect(text).not.toContain('storms');
  });

  it('a list whose items are long and carry a link each (a bibliography) stays, as does a sentence with a link in it', () => {
    const items = ['Moray, A. (1961). <a href="/b/1">The harbour wall and the gale of 1953: an account of the repairs and of the men who made them</a>.', 'Keel, J. (1975). <a href="/b/2">Granite from the island quarries, their stone and their trade along the northern coast, 1800 to 1900</a>.'];
    const text = cleaned(`${BODY}<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul><p>The repairs are described in <a href="/report">the engineers' report</a>, which the harbour trust published the following spring.</p>`);
    expect(text).toContain('an account of the repairs');
    expect(text).toContain("which the harbour trust published the following spring");
  });
});

describe('breadcrumb trails', () => {
  it('a trail by its markup goes (class, id, schema.org BreadcrumbList, aria-label), even when its last crumb is no link', () => {
    const text = cleaned(
      `<p id="breadcrumbs"><a href="/">Home</a> » <a href="/news">News</a> » <strong>The harbour wall</strong></p><ol itemtype="https://schema.org/BreadcrumbList"><li><a href="/">Home</a></li><li>Island news</li></ol>${BODY}`,
    );
    expect(text).toBe(BODY.replace(/<\/?p>/g, ''));
  });

  it('a long block whose class mentions breadcrumbs is text', () => {
    const long = 'The harbour trust laid a trail of painted stones from the old quay to the museum, a breadcrumb trail for visitors, and each stone names a ship that sheltered behind the wall.';
    const text = cleaned(`${BODY}<div class="breadcrumb-story"><p>${long} ${long}</p></div>`);
    expect(text).toContain(long);
  });
});

describe('bylines, dates and time', () => {
  it('a byline by its markup, a "By Name" line, a "Published …" line, a date-and-time line and a short block around <time> go', () => {
    const text = cleaned(
      `<div class="byline">Agnes Moray, Harbour Correspondent</div>${BODY}<p>By Jane Keel and Tom Ness</p><p>Published 12 March 2020</p><p>Nov 19, 2019 6:55 AM</p><p>November 18, 2019 | 4:10pm</p><div><time datetime="2020-03-12">12 March 2020</time></div>`,
    );
    expect(text).toBe(BODY.replace(/<\/?p>/g, ''));
  });

  it('a short paragraph that starts like a byline but is a sentence of the article stays ("By Tuesday, …")', () => {
    const sentence = 'By Tuesday, the water had risen two metres above the quay.';
    const text = cleaned(`${BODY}<p>${sentence}</p><p>By the end of the week the wall was gone.</p>`);
    expect(text).toContain(sentence);
    expect(text).toContain('By the end of the week the wall was gone.');
  });

  it('a short sentence that holds a <time> stays: the date is part of what it says', () => {
    const sentence = 'The new wall was opened on <time datetime="1955-06-01">1 June 1955</time> by the harbour master.';
    const text = cleaned(`${BODY}<p>${sentence}</p>`);
    expect(text).toContain('The new wall was opened on 1 June 1955 by the harbour master.');
  });

  it('a long block with an author class is text, not a byline', () => {
    const long = 'Agnes Moray kept the harbour log for forty years; her entries, written every evening by lamplight, are the only record of the storms of the 1940s and of the ships that sheltered from them.';
    const text = cleaned(`${BODY}<div class="author-notes"><p>${long}</p></div>`);
    expect(text).toContain(long);
  });
});

describe('through the extraction (Readability strips classes)', () => {
  it('the classes the rules read are kept through Readability, and taken out of the output', async () => {
    const { extractPage } = await import('../../src/web/extract.js');
    const para = 'The harbour wall, built in 1820 from granite quarried on the island, held through every winter storm until the great gale of 1953 broke it in two places, and the town rebuilt it the next summer.';
    const html = `<html><head><title>The wall</title></head><body><nav><a href="/">Home</a></nav><article><h1>The wall</h1>${Array(6).fill(`<p>${para}</p>`).join('')}<div class="story-byline">Agnes Moray in Kirkwall</div><p class="media-credit">Harbour Trust archive</p></article></body></html>`;
    const text = extractPage(html, { url: 'https://example.com/wall', format: 'text', onlyMainContent: true }).content;
    expect(text).toContain('the town rebuilt it the next summer');
    expect(text).not.toContain('Agnes Moray');
    expect(text).not.toContain('Harbour Trust archive');
    const out = extractPage(html, { url: 'https://example.com/wall', format: 'html', onlyMainContent: true }).content;
    expect(out).not.toMatch(/class="[^"]*(?:byline|credit)/i);
  });
});

describe('comments, comment forms, tag lines and boxes named as not the article', () => {
  const TEXT = BODY.replace(/<\/?p>/g, '');

  it('a comments heading and what follows it go, with the form lines, by their words alone', () => {
    const text = cleaned(
      `${BODY}<h3>2 Responses to “The harbour wall”</h3><ol><li>Bob says: lovely piece about the wall.</li></ol><h3>Leave a Reply</h3><p>Your email address will not be published. Required fields are marked *</p><p>Name (required)</p>`,
    );
    expect(text).toBe(TEXT);
  });

  it('"Tags: …" and "Filed under …" lines go; a sentence that mentions tags stays', () => {
    expect(cleaned(`${BODY}<p>Tags: harbour, storms</p><div>Filed under <a href="/n">News</a></div>`)).toBe(TEXT);
    const sentence = '<p>Tags: the fishermen called the broken stones by names of their own, and painted them in blue and white every spring.</p>';
    expect(cleaned(`${BODY}${sentence}`)).toContain('painted them in blue');
  });

  it('comment sections, author boxes, related and tag boxes go by class or id; a box holding most of the text stays', () => {
    const text = cleaned(
      `${BODY}<div class="author-bio"><p>Jane Moray writes about the island's history and its harbours for the weekly paper.</p></div><section class="related-articles"><p>The lighthouse keepers of the north coast and their lives.</p></section><div id="comments"><p>Bob: what a story about the wall and the gale.</p></div>`,
    );
    expect(text).toBe(TEXT);
    const doc = parseDocument(`<html><body><div id="a"><div class="comment-content">${BODY}${BODY}</div><p>Short note.</p></div></body></html>`);
    const root = doc.querySelector('#a') as DomElement;
    cleanArticle(root);
    expect(root.textContent).toContain('The harbour wall');
  });

  it('a "Comments" box chosen by nothing but its size does not beat a short post: named boxes go before Readability', async () => {
    const { extractPage } = await import('../../src/web/extract.js');
    const comment = (n: number) => `<div class="comment-body comment-content"><p>Reader ${n} wrote a long reply about the harbour wall, the gale of 1953, the repairs and the cost of it all to the island.</p></div>`;
    const html = `<html><body><div class="post"><h1>The wall</h1>${BODY}</div><div class="comments-area comment-content">${Array.from({ length: 12 }, (_, i) => comment(i)).join('')}</div></body></html>`;
    const page = extractPage(html, { url: 'https://site.example/p', format: 'text', onlyMainContent: true });
    expect(page.content).toContain('The harbour wall');
    expect(page.content).not.toContain('Reader 3 wrote');
  });
});

describe('markdown tables a model reads', () => {
  it('a table with a nested table, lists, code and <br> in cells has no raw HTML left', async () => {
    const { extractPage } = await import('../../src/web/extract.js');
    const html = `<html><body><article>${BODY}${BODY}<table><tr><td>Outer <a href="/a">link</a><table><tr><th>Year</th><th>Event</th></tr><tr><td>1820</td><td>Built<br>in granite</td></tr></table></td><td><p>Side note</p></td></tr></table><table><tr><th>Part</th><th>Notes</th></tr><tr><td>North<br>pier</td><td><ul><li>cracked</li><li>rebuilt</li></ul></td></tr><tr><td><pre>x = 1\ny = 2</pre></td><td><h4>Head</h4></td></tr></table></article></body></html>`;
    const markdown = extractPage(html, { url: 'https://site.example/p', format: 'markdown', onlyMainContent: true }).content;
    expect(markdown).not.toMatch(/<\/?(?:table|tr|td|th|a|br|ul|li|div|p|pre)\b/i);
    expect(markdown).toContain('| 1820 | Built in granite |');
    expect(markdown).toContain('[link](https://site.example/a)');
    expect(markdown).toContain('Side note');
    expect(markdown).toContain('cracked');
  });

  it('a data table keeps its shape: line breaks and list items become inline text in the cell', async () => {
    const { extractPage } = await import('../../src/web/extract.js');
    const html = `<html><body><article>${BODY}${BODY}<table><tr><th>Part</th><th>Notes</th></tr><tr><td>North<br>pier</td><td><ul><li>cracked</li><li>rebuilt</li></ul></td></tr></table></article></body></html>`;
    const markdown = extractPage(html, { url: 'https://site.example/p', format: 'markdown', onlyMainContent: true }).content;
    expect(markdown).toContain('| North pier | cracked; rebuilt |');
  });
});

describe('discussion pages keep their replies', () => {
  it('a forum thread (DiscussionForumPosting, no article markup) keeps its comment section; an article with the same markup does not', async () => {
    const { extractPage } = await import('../../src/web/extract.js');
    const replies = `<div class="comments"><h3>3 Replies</h3>${[1, 2, 3].map((n) => `<div class="post"><p>Reply ${n}: the wall in the north was rebuilt in 1954 with stone from the old quarry near the lighthouse.</p></div>`).join('')}</div>`;
    const thread = `<html><head><script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"The wall"}</script></head><body><div class="topic"><h1>The wall</h1>${BODY}${replies}</div></body></html>`;
    const forum = extractPage(thread, { url: 'https://forum.example/t/1', format: 'text', onlyMainContent: true }).content;
    expect(forum).toContain('Reply 2: the wall in the north');
    const article = thread.replace('"@type":"DiscussionForumPosting"', '"@type":"NewsArticle"');
    expect(extractPage(article, { url: 'https://news.example/a', format: 'text', onlyMainContent: true }).content).not.toContain('Reply 2');
  });
});
