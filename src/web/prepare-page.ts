/**
 * A parsed page as a reader sees it, before any rule reads it: React's streamed parts in place, URLs
 * absolute, math as text, content sent in <noscript> unwrapped, cookie banners and dialogs out.
 */
import { cleanText, parseDocument, type DomDocument, type DomNode } from './dom.js';
import { unwrapContentNoscripts } from './noscript.js';
import { resolveStreamedParts } from './streamed.js';

/** Attributes holding URLs that must be absolute in the output, by element. */
const URL_ATTRIBUTES: Record<string, string[]> = {
  A: ['href'],
  AREA: ['href'],
  IMG: ['src', 'data-src', 'srcset'],
  VIDEO: ['src', 'poster'],
  AUDIO: ['src'],
  SOURCE: ['src', 'srcset'],
};

/** Every element with one of those attributes: one walk of the document instead of one per attribute. */
const WITH_URLS = 'a[href], area[href], img[src], img[data-src], img[srcset], video[src], video[poster], audio[src], source[src], source[srcset]';

function resolve(value: string, base: string): string | null {
  const trimmed = value.trim();
  if (!trimmed || /^(?:javascript|mailto|tel|data|about|blob):/i.test(trimmed)) return null;
  try {
    return new URL(trimmed, base).toString();
  } catch {
    return null;
  }
}

export function absolutize(doc: DomDocument, base: string): void {
  for (const element of doc.querySelectorAll(WITH_URLS)) {
    for (const attribute of URL_ATTRIBUTES[element.nodeName] ?? []) {
      const value = element.getAttribute(attribute);
      if (value === null) continue;
      if (attribute === 'srcset') {
        const srcset = value
          .split(',')
          .map((part) => {
            const [candidate, ...descriptor] = part.trim().split(/\s+/);
            const url = candidate ? resolve(candidate, base) : null;
            return url ? [url, ...descriptor].join(' ') : '';
          })
          .filter(Boolean)
          .join(', ');
        element.setAttribute('srcset', srcset);
      } else if (attribute === 'data-src') {
        // Lazy images keep the real source in data-src; without it the markdown has placeholder images.
        const src = element.getAttribute('src') ?? '';
        if (!src || src.startsWith('data:')) {
          const url = resolve(value, base);
          if (url) element.setAttribute('src', url);
        }
      } else if (!value.trim().startsWith('#')) {
        const url = resolve(value, base);
        if (url) element.setAttribute(attribute, url);
      }
    }
  }
}

/**
 * MathML as readable text: its TeX annotation when there is one, else its alttext, else its tokens
 * spaced out. Readability drops <math> elements otherwise, and with them the formulas.
 */
function flattenMath(doc: DomDocument): void {
  // MathJax renders formulas as custom elements and keeps the MathML beside them for screen readers.
  for (const container of [...doc.querySelectorAll('mjx-container')]) {
    const math = container.querySelector('math');
    if (math) container.replaceWith(math);
  }
  for (const math of [...doc.querySelectorAll('math')]) {
    const tex = cleanText(math.querySelector('annotation[encoding*="tex" i]')?.textContent);
    const tokens: string[] = [];
    const leaves = (node: DomNode) => {
      const children = [...node.childNodes].filter((child) => child.nodeType === 1);
      if (children.length === 0) {
        const text = cleanText(node.textContent);
        if (text) tokens.push(text);
      } else for (const child of children) if (child.nodeName.toLowerCase() !== 'annotation') leaves(child);
    };
    if (!tex) leaves(math);
    const text = tex ? `$${tex}$` : (cleanText(math.getAttribute('alttext')) ?? tokens.join(' '));
    const block = math.getAttribute('display') === 'block';
    const replacement = doc.createElement(block ? 'p' : 'span');
    replacement.textContent = text;
    math.replaceWith(replacement);
  }
}

/** Cookie and consent banners and modal dialogs: short blocks Readability may otherwise keep. */
const BANNERS =
  '[id*="cookie" i], [class*="cookie" i], [id*="consent" i], [class*="consent" i], [class*="gdpr" i], [id*="gdpr" i], [role="dialog"], [aria-modal="true"], [role="alertdialog"]';

export function removeBanners(doc: DomDocument): void {
  for (const element of [...doc.querySelectorAll(BANNERS)]) {
    if (/^(?:HTML|BODY|MAIN|ARTICLE)$/i.test(element.nodeName)) continue;
    if ((element.textContent ?? '').length < 600) element.remove();
  }
}

/** A parsed page as a reader sees it: streamed parts in place, absolute URLs, math as text, content sent in <noscript> unwrapped. */
export function prepare(doc: DomDocument, base: string): DomDocument {
  resolveStreamedParts(doc);
  absolutize(doc, base);
  flattenMath(doc);
  unwrapContentNoscripts(doc);
  return doc;
}

/** The page parsed again and prepared as for Readability (links absolute, math flattened, content noscripts read, banners out). */
export function freshPage(html: string, base: string): DomDocument {
  const fresh = prepare(parseDocument(html), base);
  removeBanners(fresh);
  return fresh;
}
