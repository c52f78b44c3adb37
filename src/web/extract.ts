/**
 * One HTML page to text: metadata and links from the whole page, then the main content (Mozilla
 * Readability over linkedom; the cleaned body when Readability finds no article, or when the caller
 * wants the whole page) in markdown, plain text or HTML.
 */
import type { Metadata } from '../model/content.js';
import { cleanText, parseDocument, type DomDocument, type DomElement } from './dom.js';
import { htmlToMarkdown, repairTables, simplifyTables } from './markdown.js';
import { cleanArticle } from './clean-article.js';
import { isDiscussionPage } from './discussion.js';
import { repliesKept, repliesLength, replySamples, threadContainer } from './thread.js';
import { isNavigationLike, proseLength } from './navigation.js';
import { mayBeQuestionPage, questionAndAnswers } from './questions.js';
import { bodyOverArticle, declaredBodyProse, footerBeforeReading, mainOverArticle, mayBeRunOfBody, mayDeclareArticleBody, mayHaveMainElement, mayPreferMain } from './page-main.js';
import { extractPageMetadata } from './page-metadata.js';
import { baseUrlOf, documentLinks } from './links.js';
import { htmlToText } from './html-text.js';
import { resolveStreamedParts } from './streamed.js';
import { absolutize, freshPage, prepare, removeBanners } from './prepare-page.js';
import { cleaningClasses, keepOnlyClasses, languageClasses, readArticle, textLengthUpTo, tidyTitle } from './read-article.js';

export { htmlToText };

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

/** Elements never part of a page's text. */
const NEVER_CONTENT = 'script, style, noscript, template, link, meta, svg, canvas, iframe, object, embed';

/** Page furniture dropped when Readability finds no article but the caller wants the main content. */
const FURNITURE =
  'nav, header, footer, aside, form, [role="navigation"], [role="banner"], [role="contentinfo"], [role="dialog"], [aria-hidden="true"], [hidden], [id*="cookie" i], [class*="cookie" i], [id*="consent" i], [class*="consent" i], [class*="gdpr" i]';

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
