/**
 * The page reader: a scraped page's markdown rendered, its links, and its screenshot when one was
 * taken (the result's image block). Rendered with DOM nodes and text only, never as HTML: a page's
 * markdown is the page author's text. Links open through the host, http(s) only; images are shown
 * as links (loading them would reach an origin the app's CSP does not name).
 */
import type { AppParts } from './bridge.js';

const CSS = `
#page { max-width: 72ch; }
#page pre { overflow-x: auto; padding: 8px; background: #8882; }
#page blockquote { margin: 0; padding-left: 12px; border-left: 3px solid #8886; }
#screenshot img { max-width: 100%; border: 1px solid #8884; }
#links { font-size: 0.9em; }
`;

const BODY = `<h1 id="page-title">Page</h1><div id="page-source" class="muted"></div><div id="screenshot"></div><article id="page"></article>
<details id="links-box"><summary>Links on the page</summary><ul id="links"></ul></details>`;

const SCRIPT = String.raw`

function link(href, text) {
  const safe = /^https?:\/\//i.test(href) ? href : undefined;
  if (!safe) return document.createTextNode(text);
  const a = el('a', { href: safe, textContent: text, rel: 'noopener noreferrer' });
  a.addEventListener('click', (e) => { e.preventDefault(); bridge.openLink(safe); });
  return a;
}

/** Inline markdown: code, links (and images, shown as links), bold, italics; the rest as text. */
function inline(text) {
  const out = [];
  const pattern = /(\x60[^\x60]+\x60)|!?\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|\*\*([^*]+)\*\*|(?:^|(?<=\W))[*_]([^*_]+)[*_](?=\W|$)/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1]) out.push(el('code', { textContent: m[1].slice(1, -1) }));
    else if (m[3] !== undefined) out.push(link(m[3], m[2] || m[3]));
    else if (m[4]) out.push(el('strong', {}, ...inline(m[4])));
    else out.push(el('em', {}, ...inline(m[5])));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Block markdown: headings, fenced code, quotes, lists, rules and paragraphs. */
function render(markdown) {
  const nodes = [];
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let paragraph = [];
  let list;
  const flush = () => {
    if (paragraph.length) nodes.push(el('p', {}, ...inline(paragraph.join(' '))));
    paragraph = [];
    list = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m;
    if (/^\s*\x60\x60\x60/.test(line)) {
      flush();
      const code = [];
      while (++i < lines.length && !/^\s*\x60\x60\x60/.test(lines[i])) code.push(lines[i]);
      nodes.push(el('pre', {}, el('code', { textContent: code.join('\n') })));
    } else if ((m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line))) {
      flush();
      nodes.push(el('h' + Math.min(m[1].length + 1, 6), {}, ...inline(m[2])));
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      nodes.push(el('hr'));
    } else if ((m = /^\s*>\s?(.*)$/.exec(line))) {
      flush();
      nodes.push(el('blockquote', {}, ...inline(m[1])));
    } else if ((m = /^\s*(?:[-*+]|(\d+)[.)])\s+(.*)$/.exec(line))) {
      if (paragraph.length) flush();
      const tag = m[1] ? 'ol' : 'ul';
      if (!list || list.tagName.toLowerCase() !== tag) nodes.push((list = el(tag)));
      list.append(el('li', {}, ...inline(m[2])));
    } else if (line.trim() === '') flush();
    else paragraph.push(line.trim());
  }
  flush();
  return nodes;
}

function showPageResult(result) {
  const page = bridge.pageOf(result);
  const scraped = page.result || page;
  document.getElementById('page-title').textContent = scraped.title || page.title || scraped.url || 'Page';
  document.getElementById('page-source').replaceChildren(link(scraped.url || page.url || '', scraped.url || page.url || ''));
  const image = (result.content || []).find((block) => block.type === 'image' && block.mimeType === 'image/png');
  document.getElementById('screenshot').replaceChildren(...(image ? [el('img', { src: 'data:image/png;base64,' + image.data, alt: 'Screenshot of the page' })] : []));
  document.getElementById('page').replaceChildren(...render(String(scraped.content || '')));
  const urls = Array.isArray(scraped.urls) ? scraped.urls : [];
  document.getElementById('links').replaceChildren(...urls.map((url) => el('li', {}, link(url, url))));
  document.getElementById('links-box').hidden = urls.length === 0;
}
`;

/** The reader's parts; its script defines showPageResult(result). */
export const READER: AppParts = { css: CSS, body: `<section id="reader">${BODY}</section>`, script: SCRIPT };
