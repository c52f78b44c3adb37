/**
 * HTML to Markdown: headings (ATX), lists, links and images (the caller made URLs absolute), fenced
 * code blocks that keep their language, and GFM tables.
 */
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';
import type { DomElement, DomNode } from './dom.js';

/** The part of a DOM element these rules read (the project compiles without the DOM lib). */
interface El {
  nodeName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector?(selector: string): El | null;
}

/** Class names and attributes by which highlighters announce a code block's language. */
const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang|highlight-source|highlight-text|brush:?)-?\s*([a-z0-9_+#-]+)/i;

function codeLanguage(node: El): string {
  const code = node.querySelector?.('code');
  for (const element of [node, code]) {
    if (!element) continue;
    const data = element.getAttribute('data-lang') ?? element.getAttribute('data-language');
    if (data) return data.trim().split(/\s+/)[0];
    const match = (element.getAttribute('class') ?? '').match(LANGUAGE_CLASS);
    if (match) return match[1];
  }
  return '';
}

export interface MarkdownOptions {
  /** Links become their text and images their alt text: no URLs in the markdown (Supadata's noLinks). */
  noLinks?: boolean;
}

function createService(noLinks: boolean): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', hr: '---' });
  service.use(gfm);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'button', 'select', 'input', 'textarea', 'canvas']);
  service.addRule('fencedCodeWithLanguage', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const element = node as unknown as El;
      const code = (element.textContent ?? '').replace(/\n$/, '');
      const longestRun = Math.max(2, ...(code.match(/`+/g) ?? []).map((run: string) => run.length));
      const fence = '`'.repeat(longestRun + 1);
      return `\n\n${fence}${codeLanguage(element)}\n${code}\n${fence}\n\n`;
    },
  });
  service.addRule('imagesWithAlt', {
    filter: 'img',
    replacement: (_content, node) => {
      const element = node as unknown as El;
      const src = element.getAttribute('src') ?? '';
      const alt = (element.getAttribute('alt') ?? '').replace(/\s+/g, ' ').replace(/[[\]]/g, '\\$&').trim();
      // Inline data: images would flood the text with base64; their alt text is what a reader gets.
      if (!src || src.startsWith('data:') || noLinks) return alt;
      const title = element.getAttribute('title');
      return `![${alt}](${src.replace(/[()\s]/g, encodeURIComponent)}${title ? ` "${title.replace(/"/g, '\\"')}"` : ''})`;
    },
  });
  if (noLinks) service.addRule('linkText', { filter: 'a', replacement: (content) => content });
  return service;
}

const services = new Map<boolean, TurndownService>();

/** Table parts that must sit in their table part: the GFM table rule walks up from them to a <table>. */
const TABLE_PARENTS: Record<string, RegExp> = {
  TD: /^TR$/,
  TH: /^TR$/,
  TR: /^(?:TABLE|THEAD|TBODY|TFOOT)$/,
  THEAD: /^TABLE$/,
  TBODY: /^TABLE$/,
  TFOOT: /^TABLE$/,
  CAPTION: /^TABLE$/,
};

/**
 * Makes a tree the GFM table rule can read. linkedom keeps what a browser's parser would repair:
 * cells and rows outside any table (broken HTML, or after Readability removed their table) made
 * the rule throw, so a misplaced table part becomes a plain block; inside a row, whitespace and
 * comments go and stray text gets a cell of its own, since the rule reads every child of a row as a cell.
 */
export function repairTables(root: DomElement, createElement: (name: string) => DomElement): void {
  // One walk by hand: linkedom's querySelectorAll over a large page cost more than the repair.
  const walk = (node: DomNode): void => {
    for (const child of [...node.childNodes]) {
      if (child.nodeType !== 1) continue;
      const name = child.nodeName;
      const parents = TABLE_PARENTS[name];
      if (parents && !parents.test(node.nodeName)) {
        const block = createElement(name === 'TD' || name === 'TH' || name === 'CAPTION' ? 'div' : 'section');
        block.append(...child.childNodes);
        (child as DomElement).replaceWith(block);
        walk(block);
        continue;
      }
      if (name === 'TR') cleanRow(child as DomElement, createElement);
      walk(child);
    }
  };
  walk(root);
}

function cleanRow(row: DomElement, createElement: (name: string) => DomElement): void {
  for (const child of [...row.childNodes]) {
    if (child.nodeName === 'TD' || child.nodeName === 'TH') continue;
    if (child.nodeType === 1 || (child.nodeType === 3 && /\S/.test(child.textContent ?? ''))) {
      const cell = createElement('td');
      (child as DomElement).replaceWith(cell);
      cell.append(child);
    } else (child as DomElement).remove();
  }
}

/** A cell with more text than this is a layout block, not a value. */
const LAYOUT_CELL_CHARS = 400;
/** What the GFM table rule cannot put in a cell: with any of these it kept the whole table as raw HTML. */
const CELL_BLOCKS = /^(?:P|DIV|SECTION|ARTICLE|UL|OL|DL|LI|DT|DD|BLOCKQUOTE|PRE|H[1-6]|HR|FIGURE|FIGCAPTION|HEADER|FOOTER|ADDRESS|CENTER)$/;

const cellsOf = (row: DomNode) => [...row.childNodes].filter((cell) => cell.nodeName === 'TD' || cell.nodeName === 'TH') as DomElement[];

/**
 * Tables a model can read in markdown. The GFM rule writes a table holding a list, a heading, a
 * quote or code as raw HTML (`<table><tr><td><a href=...>`), and a line break in a cell as `<br>`.
 * So, innermost tables first: a layout table (one holding another table, a single column, a heading
 * or a long text in a cell) becomes its cells' content as blocks, in reading order; in a data table
 * each cell's blocks and line breaks become inline text (list items joined by "; ", headings bold,
 * code inline), so the table stays a markdown table.
 */
export function simplifyTables(root: DomElement, createElement: (name: string) => DomElement): void {
  const tables = [...root.querySelectorAll('table')];
  for (let i = tables.length - 1; i >= 0; i--) {
    const table = tables[i];
    if (!table.parentNode) continue;
    const rows = ((table as DomElement & { rows?: DomElement[] }).rows ?? []) as DomElement[];
    const cells = rows.flatMap(cellsOf);
    const columns = Math.max(0, ...rows.map((row) => cellsOf(row).length));
    const layout =
      columns <= 1 ||
      table.querySelector('table') !== null ||
      cells.some((cell) => (cell.textContent ?? '').length > LAYOUT_CELL_CHARS || cell.querySelector('h1, h2, h3, h4, h5, h6') !== null);
    if (layout) unwrapTable(table, rows, createElement);
    else for (const cell of cells) inlineCell(cell, createElement);
  }
}

function unwrapTable(table: DomElement, rows: DomElement[], createElement: (name: string) => DomElement): void {
  const block = createElement('div');
  const caption = table.querySelector('caption');
  if (caption) {
    const line = createElement('p');
    line.append(...caption.childNodes);
    block.append(line);
  }
  for (const row of rows) {
    const line = createElement('div');
    for (const cell of cellsOf(row)) {
      const part = createElement('div');
      part.append(...cell.childNodes);
      line.append(part);
    }
    block.append(line);
  }
  table.replaceWith(block);
}

/** A cell's content as one line: blocks become spans with spaces between them, line breaks spaces. */
function inlineCell(cell: DomElement, createElement: (name: string) => DomElement): void {
  const elements = [...cell.querySelectorAll('*')];
  // Items followed by another item, told before any is replaced.
  const followed = new Set(elements.filter((element) => element.nodeName === 'LI' && (element as DomElement & { nextElementSibling: DomElement | null }).nextElementSibling?.nodeName === 'LI'));
  for (let i = elements.length - 1; i >= 0; i--) {
    const element = elements[i];
    const name = element.nodeName;
    if (name === 'BR') element.replaceWith(' ');
    else if (name === 'HR') element.remove();
    else if (name === 'PRE') {
      const code = createElement('code');
      code.textContent = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
      element.replaceWith(' ', code, ' ');
    } else if (CELL_BLOCKS.test(name)) {
      const span = createElement(/^H[1-6]$/.test(name) ? 'strong' : 'span');
      span.append(...element.childNodes);
      element.replaceWith(' ', span, followed.has(element) ? '; ' : ' ');
    }
  }
}

/**
 * Markdown of an HTML string, or of a DOM element's contents (turndown reads the element as it is,
 * without parsing HTML again). Throws when turndown does; extract.ts falls back.
 */
export function htmlToMarkdown(html: string | DomElement, options: MarkdownOptions = {}): string {
  const noLinks = options.noLinks === true;
  let service = services.get(noLinks);
  if (!service) services.set(noLinks, (service = createService(noLinks)));
  return service
    .turndown(html as string)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
