/**
 * HTML to Markdown: headings (ATX), lists, links and images (the caller made URLs absolute), fenced
 * code blocks that keep their language, and GFM tables.
 */
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';

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

function createService(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', hr: '---' });
  service.use(gfm);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'form', 'button', 'select', 'input', 'textarea', 'canvas']);
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
      if (!src || src.startsWith('data:')) return alt;
      const title = element.getAttribute('title');
      return `![${alt}](${src.replace(/[()\s]/g, encodeURIComponent)}${title ? ` "${title.replace(/"/g, '\\"')}"` : ''})`;
    },
  });
  return service;
}

let shared: TurndownService | undefined;

/** Markdown of an HTML string, or of a DOM element's contents (turndown reads the element as it is, without parsing HTML again). */
export function htmlToMarkdown(html: string | El): string {
  shared ??= createService();
  return shared
    .turndown(html as string)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
