/**
 * Readability's article of a prepared page: the classes kept through it (code languages, and those the
 * cleaning reads), its bar for an article, the boxes and navigation taken out before it runs, and its title.
 */
import { Readability } from '@mozilla/readability';
import type { DomDocument, DomElement, DomNode } from './dom.js';
import { CLEANING_CLASS, removeNotArticleBoxes } from './clean-article.js';
import { removeNavigationBlocks } from './navigation.js';

/** Classes that carry a code block's language: Readability keeps only the classes it is told to. */
export function languageClasses(doc: DomDocument): string[] {
  const classes = new Set<string>();
  for (const element of doc.querySelectorAll('pre, pre code, div[class*="highlight"]')) {
    for (const name of (element.getAttribute('class') ?? '').split(/\s+/)) {
      if (/^(?:language|lang|highlight-source|highlight-text)-/.test(name)) classes.add(name);
    }
  }
  return [...classes];
}

/** Takes out of the article the classes kept only for the cleaning: the output keeps the language classes alone, as before. */
export function keepOnlyClasses(root: DomElement, keep: string[]): void {
  const kept = new Set(keep);
  for (const element of [root, ...root.querySelectorAll('[class]')]) {
    const value = element.getAttribute('class');
    if (value === null) continue;
    const names = value.split(/\s+/).filter((name) => kept.has(name));
    if (names.length) element.setAttribute('class', names.join(' '));
    else element.removeAttribute('class');
  }
}

/** The page's class names that the article cleaning reads (captions, credits, bylines, breadcrumbs), kept through Readability. */
export function cleaningClasses(doc: DomDocument): string[] {
  const classes = new Set<string>();
  for (const element of doc.querySelectorAll('[class]')) {
    for (const name of (element.getAttribute('class') ?? '').split(/\s+/)) {
      if (name && CLEANING_CLASS.test(name)) classes.add(name);
    }
  }
  return [...classes];
}

/** Removes a site-name suffix after an en or em dash, which Readability 0.6 does only for "-" and "|". */
export function tidyTitle(title: string | null, documentTitle: string | null): string | null {
  if (!title || title !== documentTitle) return title;
  const parts = title.split(/ [–—] /);
  if (parts.length < 2) return title;
  const head = parts.slice(0, -1).join(' – ');
  return head.split(/\s+/).length >= 3 ? head : title;
}

type Article = { title?: string | null; content?: DomElement | null; textContent?: string | null } | null;

/**
 * Readability's article of a page whose banners are out: boxes named as not the article go first (so
 * it cannot choose one), and, when asked, navigation-like blocks. It mutates the document.
 */
export function readArticle(doc: DomDocument, classesToPreserve: string[], discussion: boolean, withoutNavigation: boolean): Article {
  if (doc.body) removeNotArticleBoxes(doc.body, discussion);
  unwrapAsidesHoldingMain(doc);
  if (withoutNavigation && doc.body) removeNavigationBlocks(doc.body);
  const charThreshold = articleThreshold(doc);
  try {
    return new Readability(doc as never, { classesToPreserve, charThreshold, serializer: (element) => element as unknown as DomElement }).parse();
  } catch {
    return null;
  }
}

/** Readability's bar (its default) for an attempt to count as the article. */
const ARTICLE_CHARS = 500;

/** The share of a short page's text an attempt must keep to count as the article. */
const SHORT_PAGE_SHARE = 0.5;

/**
 * Readability retries with less cleaning (up to four parses) until an attempt reaches its bar, and
 * when none does keeps the longest, i.e. the one that cleaned least. A page with less text than the
 * bar can never reach it, so every short page was parsed four times to keep its least cleaned
 * version; for those the bar is half the page's own text instead.
 */
function articleThreshold(doc: DomDocument): number {
  const pageChars = textLengthUpTo(doc.body, ARTICLE_CHARS / SHORT_PAGE_SHARE);
  return Math.max(1, Math.min(ARTICLE_CHARS, Math.ceil(pageChars * SHORT_PAGE_SHARE)));
}

/** The length of a node's text, whitespace collapsed, counted only up to `cap` (a large page stops early). */
export function textLengthUpTo(root: DomNode | null, cap: number): number {
  let length = 0;
  // A stack, not recursion: a page nested thousands deep must not overflow the call stack.
  const stack: DomNode[] = root ? [root] : [];
  while (stack.length && length < cap) {
    const node = stack.pop()!;
    if (node.nodeType === 3) length += (node.textContent ?? '').replace(/\s+/g, ' ').length;
    else if (node.nodeType === 1 || node === root) {
      const children = [...node.childNodes];
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return length;
}

/** Readability drops every <aside>, and with it a page's <main> when a layout puts one inside. */
function unwrapAsidesHoldingMain(doc: DomDocument): void {
  for (const aside of [...doc.querySelectorAll('aside')]) {
    if (aside.querySelector('main, [role="main"]')) aside.replaceWith(...aside.childNodes);
  }
}
