/**
 * Broken HTML, as real sites serve it, made from a seed: the same seed gives the same page. Each
 * page carries readable paragraphs (so an empty reply is always wrong) wrapped in a random choice of
 * the breakages that crashed or emptied extraction: table cells and rows outside any table, stray
 * text inside rows, unclosed tables, a second <html>/<body>, no <body> or no <head>, the whole body
 * in a <form> (ASP.NET), <main> inside an <aside>, deep nesting, unclosed tags, huge attributes,
 * control characters and stray bytes, and content before <html> (scripts, comments, a <meta>, text,
 * an XML declaration, binary junk: linkedom took the first element for the document and the extraction
 * crashed); constructs that swallow the rest of a page (an unclosed comment, script or truncated tag)
 * only come after the text.
 */

/** mulberry32: a small seeded generator (deterministic, good enough for test data). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'river lantern orbit copper meadow signal harbor velvet summit canyon ember quarry falcon garnet willow tundra beacon cobalt prairie'.split(' ');

/** What real pages put before their <html> tag (analytics snippets, server debug output, a BOM and an XML declaration...). */
export const BEFORE_HTML: ReadonlyArray<[kind: string, html: string]> = [
  ['script before html', '<script>window.t0 = Date.now();</script>'],
  ['comment before html', '<!-- generated in 12 ms -->'],
  ['comment and script before doctype', '<!-- a --><script src="/x.js"></script><!doctype html>'],
  ['meta before html', '<meta charset="utf-8"><meta name="viewport" content="width=device-width">'],
  ['style before html', '<style>body { margin: 0 }</style>'],
  ['link before html', '<link rel="stylesheet" href="/a.css">'],
  ['text before html', 'Warning: Undefined variable $x in /var/www/index.php on line 3\n'],
  ['element before html', '<div id="debug"><b>debug</b> output</div>'],
  ['BOM and XML declaration', '\ufeff<?xml version="1.0" encoding="utf-8"?>\n'],
  ['binary junk before html', '\u0000\u0001\u00ff\u00fe\u0007PK\u0003\u0004'],
  ['noscript before html', '<noscript><img src="/pixel.gif"></noscript>'],
  ['processing instruction before html', '<?php echo 1; ?>'],
  ['CDATA before html', '<![CDATA[ x ]]>'],
];

export interface MalformedPage {
  seed: number;
  html: string;
  /** The breakages this page has, for failure messages. */
  kinds: string[];
  /** Words every reply must contain at least one of (they are in the page's visible text). */
  words: string[];
}

export function malformedPage(seed: number): MalformedPage {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const chance = (p: number) => random() < p;
  const kinds: string[] = [];
  const used = new Set<string>();
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(random() * 12) }, () => pick(WORDS));
    for (const word of words) used.add(word);
    return `${words.join(' ')}.`;
  };
  const paragraph = () => `<p>${sentence()} ${sentence()} ${sentence()}</p>`;

  const pieces: string[] = [`<h1>${sentence()}</h1>`, paragraph()];
  const breakages: Array<[string, () => string]> = [
    ['orphan cells', () => `<div class="row"><td>${sentence()}</td><th>${sentence()}</th></div>`],
    ['orphan rows', () => `<section><tr><td>${sentence()}</td><td>${sentence()}</td></tr><tr>\n  <td>x</td>\n</tr></section>`],
    ['stray text in rows', () => `<table><tr> ${sentence()} <td>${sentence()}</td> <!-- c --> <td>two</td></tr><tr><th>a</th><th>b</th></tr></table>`],
    ['unclosed table', () => `<table><tr><td>${sentence()}<td>${sentence()}<tr><td>${sentence()}`],
    ['table section outside table', () => `<div><thead><tr><th>${sentence()}</th></tr></thead><tbody><tr><td>${sentence()}</td></tr></tbody></div>`],
    ['deep nesting', () => `${'<div><span>'.repeat(400)}${sentence()}${'</span></div>'.repeat(chance(0.5) ? 400 : 3)}`],
    ['unclosed tags', () => `<p><b><i>${sentence()}<p><em>${sentence()}<li>${sentence()}<blockquote>${sentence()}`],
    ['huge attribute', () => `<div data-state="${'x'.repeat(200_000 + Math.floor(random() * 100_000))}" class="${'c '.repeat(5_000)}">${sentence()}</div>`],
    ['control characters', () => `<p>${sentence()}\u0000\u0001\u0007\u000b\u001f\ufffd\ud800 ${sentence()}</p>`],
    ['mismatched closing tags', () => `<div><p>${sentence()}</div></p></span></td></table>${paragraph()}`],
    ['stray closing html', () => `</body></html>${paragraph()}`],
    ['nested html', () => `<html><head><title>inner</title></head><body>${paragraph()}</body></html>`],
    ['nested body', () => `<body class="again">${paragraph()}</body>`],
    ['attributes without quotes or values', () => `<div class=a"b id= =x data-x='y ${sentence()}'>${sentence()}</div>`],
    ['entities', () => `<p>${sentence()} &amp &lt;&gt;&#0;&#xFFFFFF;&bogus; &#128512; ${sentence()}</p>`],
    ['svg and math', () => `<svg><text>${sentence()}</text><foreignObject><p>${sentence()}</p></foreignObject></svg><math><mi>x</mi></math>${paragraph()}`],
    ['list items without list', () => `<li>${sentence()}</li><dd>${sentence()}</dd><option>${sentence()}</option>`],
    ['links and images everywhere', () => `<a href="javascript:alert(1)"><div>${sentence()}</div></a><a href="http://[bad">x</a><img src="::::"><a>${sentence()}</a>`],
    ['pre and code', () => `<pre><code class="language-js">${sentence()}\n  <td>not a cell</td></code></pre>`],
    ['empty elements', () => `<table></table><tr></tr><td></td><ul></ul><p></p>${paragraph()}`],
  ];
  const count = 2 + Math.floor(random() * 5);
  for (let i = 0; i < count; i++) {
    const [kind, make] = pick(breakages);
    kinds.push(kind);
    pieces.push(make(), chance(0.5) ? paragraph() : '');
  }
  pieces.push(paragraph());

  let body = pieces.join('\n');
  const wrapper = pick(['none', 'form', 'aside main', 'article', 'main'] as const);
  if (wrapper !== 'none') kinds.push(`wrapped in ${wrapper}`);
  if (wrapper === 'form') body = `<form method="post" action="./page.aspx" id="form1"><input type="hidden" name="__VIEWSTATE" value="${'A'.repeat(2000)}"><div class="page">${body}</div></form>`;
  if (wrapper === 'aside main') body = `<aside class="layout"><main>${body}</main></aside>`;
  if (wrapper === 'article') body = `<nav><a href="/">Home</a></nav><article>${body}</article><footer>Footer</footer>`;
  if (wrapper === 'main') body = `<header>Site</header><main>${body}</main>`;

  const shape = pick(['full', 'no body', 'no head', 'fragment', 'head only', 'text in head'] as const);
  if (shape !== 'full') kinds.push(shape);
  const head = `<head><meta charset="utf-8"><title>Seed ${seed}</title></head>`;
  let html =
    shape === 'full' ? `<!doctype html><html>${head}<body>${body}</body></html>`
    : shape === 'no body' ? `<!doctype html><html>${head}${body}</html>`
    : shape === 'no head' ? `<html><body>${body}</body></html>`
    : shape === 'fragment' ? body
    : shape === 'head only' ? `${head}${body}`
    : `<html><head><title>Seed ${seed}</title>${body}</head><body></body></html>`;

  if (chance(0.6)) {
    const [kind, before] = pick(BEFORE_HTML);
    kinds.push(kind);
    html = before + html;
  }

  // Endings that swallow what follows, so only after all the text.
  const ending = pick(['', '<!-- unclosed comment', '<script>var x = "</div>', '<div cla', '<scr', '<style>p{}', '\u0000\u0000garbage\u00ff\u00fe', '<![CDATA[ x'] as const);
  if (ending) {
    kinds.push(`ends with ${JSON.stringify(ending.slice(0, 12))}`);
    html += ending;
  }
  return { seed, html, kinds, words: [...used] };
}
