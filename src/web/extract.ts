/**
 * One HTML page to text: metadata and links from the whole page, then the main content (Mozilla
 * Readability over linkedom; the cleaned body when Readability finds no article, or when the caller
 * wants the whole page) in markdown, plain text or HTML.
 */
import { Readability } from '@mozilla/readability';
import type { Metadata } from '../model/content.js';
import { cleanText, parseDocument, type DomDocument, type DomElement, type DomNode } from './dom.js';
import { htmlToMarkdown, repairTables, simplifyTables } from './markdown.js';
import { cleanArticle, CLEANING_CLASS, removeNotArticleBoxes } from './clean-article.js';
import { isDiscussionPage } from './discussion.js';
import { repliesKept, repliesLength, replySamples, threadContainer } from './thread.js';
import { isNavigationLike, proseLength, removeNavigationBlocks } from './navigation.js';
import { unwrapContentNoscripts } from './noscript.js';
import { resolveStreamedParts } from './streamed.js';
import { mayBeQuestionPage, questionAndAnswers } from './questions.js';
import { bodyOverArticle, declaredBodyProse, footerBeforeReading, mainOverArticle, mayBeRunOfBody, mayDeclareArticleBody, mayHaveMainElement, mayPreferMain } from './page-main.js';
import { extractPageMetadata } from './page-metadata.js';
import { baseUrlOf, documentLinks } from './links.js';

export type ContentFormat = 'markdown' | 'text' | 'html';

export interface ExtractOptions {
  url: string;
  format: ContentFormat;
  onlyMainContent: boolean;
  contentLanguage?: string;
  /** No link or image URLs in the content (markdown: their text; html: links unwrapped). */
  noLinks?: boolean;
}

export interface ExtractedPage {
  title: string | null;
  content: string;
  /** Links on the whole page: absolute, http(s), no fragments, each once. */
  links: string[];
  metadata: Metadata;
  /** What went less well than it should have (a converter that failed on this page and the fallback used). */
  warnings: string[];
}

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

/** Elements never part of a page's text. */
const NEVER_CONTENT = 'script, style, noscript, template, link, meta, svg, canvas, iframe, object, embed';
/** Page furniture dropped when Readability finds no article but the caller wants the main content. */
const FURNITURE =
  'nav, header, footer, aside, form, [role="navigation"], [role="banner"], [role="contentinfo"], [role="dialog"], [aria-hidden="true"], [hidden], [id*="cookie" i], [class*="cookie" i], [id*="consent" i], [class*="consent" i], [class*="gdpr" i]';

function resolve(value: string, base: string): string | null {
  const trimmed = value.trim();
  if (!trimmed || /^(?:javascript|mailto|tel|data|about|blob):/i.test(trimmed)) return null;
  try {
    return new URL(trimmed, base).toString();
  } catch {
    return null;
  }
}

function absolutize(doc: DomDocument, base: string): void {
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

/** Classes that carry a code block's language: Readability keeps only the classes it is told to. */
function languageClasses(doc: DomDocument): string[] {
  const classes = new Set<string>();
  for (const element of doc.querySelectorAll('pre, pre code, div[class*="highlight"]')) {
    for (const name of (element.getAttribute('class') ?? '').split(/\s+/)) {
      if (/^(?:language|lang|highlight-source|highlight-text)-/.test(name)) classes.add(name);
    }
  }
  return [...classes];
}

/** Takes out of the article the classes kept only for the cleaning: the output keeps the language classes alone, as before. */
function keepOnlyClasses(root: DomElement, keep: string[]): void {
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
function cleaningClasses(doc: DomDocument): string[] {
  const classes = new Set<string>();
  for (const element of doc.querySelectorAll('[class]')) {
    for (const name of (element.getAttribute('class') ?? '').split(/\s+/)) {
      if (name && CLEANING_CLASS.test(name)) classes.add(name);
    }
  }
  return [...classes];
}

/** Removes a site-name suffix after an en or em dash, which Readability 0.6 does only for "-" and "|". */
function tidyTitle(title: string | null, documentTitle: string | null): string | null {
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
function readArticle(doc: DomDocument, classesToPreserve: string[], discussion: boolean, withoutNavigation: boolean): Article {
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
function textLengthUpTo(root: DomNode | null, cap: number): number {
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

/** Cookie and consent banners and modal dialogs: short blocks Readability may otherwise keep. */
const BANNERS =
  '[id*="cookie" i], [class*="cookie" i], [id*="consent" i], [class*="consent" i], [class*="gdpr" i], [id*="gdpr" i], [role="dialog"], [aria-modal="true"], [role="alertdialog"]';

function removeBanners(doc: DomDocument): void {
  for (const element of [...doc.querySelectorAll(BANNERS)]) {
    if (/^(?:HTML|BODY|MAIN|ARTICLE)$/i.test(element.nodeName)) continue;
    if ((element.textContent ?? '').length < 600) element.remove();
  }
}

/** Readability drops every <aside>, and with it a page's <main> when a layout puts one inside. */
function unwrapAsidesHoldingMain(doc: DomDocument): void {
  for (const aside of [...doc.querySelectorAll('aside')]) {
    if (aside.querySelector('main, [role="main"]')) aside.replaceWith(...aside.childNodes);
  }
}

function removeAll(root: DomDocument | DomElement, selector: string): void {
  for (const element of [...root.querySelectorAll(selector)]) element.remove();
}

/**
 * Page furniture out, except a block that holds the page itself: ASP.NET pages wrap the whole body
 * in one <form>, and some layouts put <main> inside an <aside> or a <header>. Removing those left
 * nothing.
 */
function removeFurniture(doc: DomDocument): void {
  const pageChars = textLengthUpTo(doc.body, Infinity);
  for (const element of [...doc.querySelectorAll(FURNITURE)]) {
    if (!element.parentNode) continue;
    if (element.querySelector('main, [role="main"], article')) continue;
    if (pageChars > 0 && textLengthUpTo(element, pageChars) > pageChars / 2) continue;
    element.remove();
  }
}

const BLOCK = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'DD', 'DIV', 'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6',
  'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TR', 'UL', 'BODY', 'HTML', 'CAPTION', 'DETAILS', 'SUMMARY',
]);

/** Plain text with one line per block, one blank line between paragraphs, tabs between table cells. */
export function htmlToText(html: string | DomElement): string {
  const root = typeof html === 'string' ? parseDocument(html) : null;
  const out: string[] = [];
  // A stack of nodes and closing breaks, not recursion: the last fallback must survive any depth.
  const stack: Array<DomNode | string> = [];
  const walk = (start: DomNode) => {
    stack.push(start);
    while (stack.length) {
      const node = stack.pop()!;
      if (typeof node === 'string') {
        out.push(node);
        continue;
      }
      if (node.nodeType === 3) {
        out.push((node.textContent ?? '').replace(/\s+/g, ' '));
        continue;
      }
      if (node.nodeType !== 1) continue;
      const name = node.nodeName.toUpperCase();
      if (/^(?:SCRIPT|STYLE|NOSCRIPT|TEMPLATE|SVG)$/.test(name)) continue;
      if (name === 'BR') {
        out.push('\n');
        continue;
      }
      if (name === 'PRE') {
        out.push('\n\n', node.textContent ?? '', '\n\n');
        continue;
      }
      if (name === 'TD' || name === 'TH') out.push('\t');
      const block = BLOCK.has(name);
      const gap = name === 'P' || /^H\d$/.test(name) ? '\n\n' : '\n';
      if (block) {
        out.push(gap);
        stack.push(gap);
      }
      const children = [...node.childNodes];
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  };
  walk(root ? ((root.body ?? root.documentElement) as DomNode) : (html as DomElement));
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \u00a0]+/g, ' ').replace(/^[ \t]+|[ \t]+$/g, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function extractPage(html: string, options: ExtractOptions): ExtractedPage {
  const doc = parseDocument(html);
  const base = baseUrlOf(doc, options.url);
  const metadata = extractPageMetadata(doc, { url: options.url, baseUrl: base, contentLanguage: options.contentLanguage });
  const links = documentLinks(doc, base);
  const documentTitle = cleanText(doc.querySelector('title')?.textContent);
  // Readability prefers a title from metadata; the dash rule below applies only to a bare <title>.
  const titleFromTagOnly = !doc.querySelector(
    'meta[property="og:title"], meta[name="twitter:title"], meta[property="twitter:title"], meta[name="dc.title" i], meta[name="parsely-title"], script[type="application/ld+json"]',
  );
  prepare(doc, base);
  const warnings: string[] = [];

  let title: string | null = null;
  // The content stays a DOM element to the end: serialising it for the converters to parse again
  // cost a second HTML parse of every page.
  let main: DomElement | null = null;
  if (options.onlyMainContent) {
    const languages = languageClasses(doc);
    const classesToPreserve = [...languages, ...cleaningClasses(doc)];
    removeBanners(doc);
    const discussion = isDiscussionPage(html, doc.body);
    const repliesChars = discussion && doc.body ? repliesLength(doc.body) : 0;
    const samples = discussion && doc.body ? replySamples(doc.body) : [];
    // Measured before Readability changes the page, to spare most pages the fresh parse of the rules below.
    const bodyProse = !discussion && mayDeclareArticleBody(html) ? declaredBodyProse(doc) : 0;
    const footer = !discussion && mayHaveMainElement(html) ? footerBeforeReading(doc) : null;
    let article = readArticle(doc, classesToPreserve, discussion, false);
    // A widget of headlines chosen over a short post: the page again without navigation-like blocks,
    // and the article with more prose is kept.
    if (!discussion && article?.content && isNavigationLike(article.content)) {
      const fresh = prepare(parseDocument(html), base);
      removeBanners(fresh);
      const retry = readArticle(fresh, classesToPreserve, discussion, true);
      if (retry?.content && cleanText(retry.textContent) && !isNavigationLike(retry.content) && proseLength(retry.content) > proseLength(article.content)) article = retry;
    }
    title = titleFromTagOnly ? tidyTitle(cleanText(article?.title), documentTitle) : cleanText(article?.title);
    // On a thread Readability may pick one long reply over the tree of them all, or keep a page's summary
    // and drop short posts: when its article holds less than half of the replies' text, or misses more
    // than a fifth of the thread's posts (by their text), the whole discussion is taken instead.
    const articleText = cleanText(article?.textContent) ?? '';
    const lostPosts = samples.length > 0 && repliesKept(samples, articleText) < POSTS_KEPT;
    const thread = discussion && repliesChars > 0 && (articleText.length < repliesChars * THREAD_SHARE || lostPosts) ? wholeThread(html, base) : null;
    // A question and its answers marked up as such: their bodies, where Readability keeps one of them.
    const answered = mayBeQuestionPage(html) ? questionAndAnswers(freshPage(html, base)) : null;
    // The page's declared main element, when Readability's article is a small part of it or lies outside it.
    const read = articleText ? (article?.content ?? null) : null;
    const declared = !discussion && !answered && !thread && mayPreferMain(read, footer) ? mainOverArticle(freshPage(html, base), read) : null;
    // The page's declared article body, when Readability kept one run of its sections.
    const body = !declared && !answered && !thread && article?.content && articleText && mayBeRunOfBody(article.content, bodyProse) ? bodyOverArticle(freshPage(html, base), article.content) : null;
    if (answered && cleanText(answered.textContent)) main = answered;
    else if (thread) main = thread;
    else if (declared) main = declared;
    else if (body) main = body;
    else if (article?.content && articleText) main = article.content;
    if (main) {
      try {
        cleanArticle(main, discussion);
      } catch {
        // A tree too deep for the cleaning keeps what Readability kept.
      }
      keepOnlyClasses(main, [...languages, 'page']); // 'page': Readability's own wrapper class
    }
  }
  title ??= metadata.title ?? documentTitle;

  // Whole page, or no article found (or one with nothing in it): the body without scripts and
  // styles, and, for main content, without navigation, headers, footers and cookie banners; then,
  // should that be empty, the body as it is, and last the whole document.
  let content = main ? convert(main, options, warnings) : '';
  if (!cleanText(content)) {
    const fresh = options.onlyMainContent ? parseDocument(html) : doc;
    if (fresh !== doc) prepare(fresh, base);
    removeAll(fresh, NEVER_CONTENT);
    const candidates = options.onlyMainContent
      ? [() => (removeFurniture(fresh), fresh.querySelector('main, [role="main"]')), () => fresh.body, () => bare(html, base), () => fresh.documentElement]
      : [() => fresh.body, () => fresh.documentElement];
    for (const next of candidates) {
      const candidate = next();
      if (!candidate || !cleanText(candidate.textContent)) continue;
      const converted = convert(candidate, options, warnings);
      if (cleanText(converted)) {
        content = converted;
        break;
      }
    }
  }
  // A page with no text at all (an empty document, or an app shell whose text scripts build) answers
  // with its title, links and metadata, and says so rather than leaving the caller with a blank.
  if (!cleanText(content)) warnings.push(NO_TEXT_WARNING);
  return { title, content, links, metadata, warnings };
}

/** The share of a thread's reply text below which Readability's article is not the thread (one reply out of many). */
const THREAD_SHARE = 0.5;
/** The share of a thread's posts (by their text) that Readability's article must hold to be kept as the thread. */
const POSTS_KEPT = 0.8;
/** Within a thread taken whole: controls and what is never text (the reply form, vote buttons, folding checkboxes). */
const NOT_THREAD_TEXT = `${NEVER_CONTENT}, nav, aside, input, button, select, textarea, [hidden], [aria-hidden="true"]`;

/**
 * A thread page's whole discussion (its replies, and its opening post when it has one), from a fresh
 * parse of the page, since Readability took the first apart; null when the page has no replies container.
 */
function wholeThread(html: string, base: string): DomElement | null {
  const fresh = freshPage(html, base);
  const container = fresh.body ? threadContainer(fresh.body) : null;
  if (!container) return null;
  removeAll(container, NOT_THREAD_TEXT);
  // The reply form goes; a form around the posts themselves (forums' moderation forms) stays.
  const threadChars = textLengthUpTo(container, Infinity);
  for (const form of [...container.querySelectorAll('form')]) if (textLengthUpTo(form, threadChars) < threadChars / 2) form.remove();
  return cleanText(container.textContent) ? container : null;
}

/** The page parsed again and prepared as for Readability (links absolute, math flattened, content noscripts read, banners out). */
function freshPage(html: string, base: string): DomDocument {
  const fresh = prepare(parseDocument(html), base);
  removeBanners(fresh);
  return fresh;
}

/** A parsed page as a reader sees it: streamed parts in place, absolute URLs, math as text, content sent in <noscript> unwrapped. */
function prepare(doc: DomDocument, base: string): DomDocument {
  resolveStreamedParts(doc);
  absolutize(doc, base);
  flattenMath(doc);
  unwrapContentNoscripts(doc);
  return doc;
}

/** The warning of a page without any text (docs/web-extraction.md). */
export const NO_TEXT_WARNING = 'The page has no text: it is empty, or its text is built by scripts (render=always reads it in a browser).';

/** The page's body with only scripts, styles and the like removed (furniture and all). */
function bare(html: string, base: string): DomElement | null {
  const doc = parseDocument(html);
  resolveStreamedParts(doc);
  absolutize(doc, base);
  removeAll(doc, NEVER_CONTENT);
  return doc.body;
}

/**
 * The content element in the wanted format. Markdown survives any tree: table parts out of place
 * are repaired first; should turndown still fail, the element's HTML is converted again through
 * turndown's own parser (which repairs trees as a browser does), and last the page comes as plain
 * text with a warning, never as an error.
 */
function convert(main: DomElement, options: ExtractOptions, warnings: string[]): string {
  main.normalize();
  if (options.format === 'text') return htmlToText(main);
  if (options.format === 'html') {
    if (options.noLinks) for (const link of [...main.querySelectorAll('a')]) link.replaceWith(...link.childNodes);
    return main.innerHTML.trim();
  }
  const markdownOptions = { noLinks: options.noLinks };
  const owner = main.ownerDocument;
  try {
    if (owner) {
      const create = (name: string) => owner.createElement(name);
      repairTables(main, create);
      simplifyTables(main, create);
    }
    return htmlToMarkdown(main, markdownOptions);
  } catch (first) {
    try {
      return htmlToMarkdown(main.outerHTML, markdownOptions);
    } catch {
      warnings.push(`The markdown conversion failed on this page (${(first as Error).message}); the content is plain text instead.`);
      return htmlToText(main);
    }
  }
}
