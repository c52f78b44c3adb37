/**
 * The page's own main element (`<main>`, `role="main"`) against Readability's article. Readability
 * keeps one block and the siblings that score well with it; on pages whose content is many blocks
 * (cards of a listing, a guide in several sections, a product's description and details) it keeps one
 * of them, and on some pages a block outside the main element altogether (a rewards box, a newsletter
 * form). When the page declares its main element and Readability's article is a small part of its
 * prose, or mostly not inside it, the main element (its furniture out) is the better main text.
 * docs/web-extraction.md (round 5) has the figures these bounds were kept on.
 */
import { contains, nameWords, type DomDocument, type DomElement, type DomNode } from './dom.js';
import { isNavigationLike, proseLength } from './navigation.js';
import { cleanArticle, namedComments } from './clean-article.js';

/** What is furniture or controls inside a main element (its own menus, side boxes, forms, buttons). */
const MAIN_FURNITURE =
  'script, style, noscript, template, link, meta, svg, canvas, iframe, object, embed, nav, aside, footer, header, input, button, select, textarea, dialog, [role="navigation"], [role="dialog"], [role="search"], [hidden], [aria-hidden="true"]';
/** Where pages declare their article's body (schema.org, WordPress, most CMS themes). */
const ARTICLE_BODY = '[itemprop="articleBody"], .entry-content, .post-content, .article-body';
/** The article's own markup: a box holding it is not a comment box, whatever its name. */
const DECLARED_ARTICLE = `h1, ${ARTICLE_BODY}`;
/** The share of the main element's prose under which Readability's article is one part of it, not the content. */
const ARTICLE_SHARE = 0.25;
/** The share of the article's text samples that must be inside the main element for the article to be part of it. */
const INSIDE_SHARE = 0.5;
/**
 * Readability's article with this much prose is kept whatever its share: a long article is what it does
 * well, and the rest of the main element beside one is comments and other stories.
 */
const LONG_ARTICLE = 2500;
/** A main element with less prose than this is a wrapper of little, not the page's content. */
const MIN_PROSE = 300;

const collapse = (value: string | null | undefined) => (value ?? '').replace(/\s+/g, ' ').trim();

/** Cheap test on the source, so pages without a main element are spared a second parse. */
export const mayHaveMainElement = (html: string): boolean => /<main[\s>]|role=["']?main\b/i.test(html);

/** What makes a link a card: a heading or a block of its own inside it (a teaser's headline and summary, a product tile). */
const CARD_INSIDE = 'h1, h2, h3, h4, h5, h6, p, div, ul, ol, section, article, figure';
/** A card's text from this length: a headline and its summary, not a button or a labelled image. */
const CARD_TEXT = 40;
/** Prose under which Readability's article is no article (its own bar for one is 500 characters of text). */
const ARTICLE_PROSE = 500;

/**
 * Links that wrap a whole card (headline, summary, picture: a listing's items, a shop's tiles) become
 * the card with the link on its headline only. Wrapped in the link, a card's summary counts as link
 * text, so a page of cards read as navigation and the cleaning took each card as a list of links.
 */
function unwrapCardLinks(main: DomElement, doc: DomDocument): void {
  for (const link of [...main.querySelectorAll('a[href]')]) {
    if (!link.parentNode || !link.querySelector(CARD_INSIDE) || collapse(link.textContent).length < CARD_TEXT) continue;
    const card = doc.createElement('div');
    card.append(...link.childNodes);
    const headline = card.querySelector('h1, h2, h3, h4, h5, h6');
    if (headline) {
      const onHeadline = doc.createElement('a');
      onHeadline.setAttribute('href', link.getAttribute('href') ?? '');
      onHeadline.append(...headline.childNodes);
      headline.append(onHeadline);
    }
    link.replaceWith(card);
  }
}

/** The elements not inside another of them. */
const outermostOf = (elements: DomElement[]): DomElement[] => elements.filter((element) => !elements.some((other) => other !== element && contains(other, element)));

/** The page's one outermost main element, or null when it has none or several. */
function mainElementOf(doc: DomDocument): DomElement | null {
  const outermost = outermostOf([...doc.querySelectorAll('main, [role="main"]')]);
  return outermost.length === 1 ? outermost[0] : null;
}

/** The article's longest runs of text, to look for in the main element. */
function samplesOf(article: DomElement, count = 8): string[] {
  const runs: string[] = [];
  const stack: DomNode[] = [article];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === 3) {
      const run = collapse(node.textContent);
      if (run.length >= 30) runs.push(run.slice(0, 120));
    } else if (node.nodeType === 1) for (const child of node.childNodes) stack.push(child);
  }
  return runs.sort((a, b) => b.length - a.length).slice(0, count);
}

/** Takes a container's own menus, side boxes, forms and buttons out. */
function removeFurniture(container: DomElement): void {
  for (const element of [...container.querySelectorAll(MAIN_FURNITURE)]) element.remove();
}

/**
 * `container` (its furniture out) as it would be returned: reader comments (this runs on pages that are no
 * discussion, even where each comment is an <article>, which the cleaning's box rule spares), related
 * boxes, link lists and bylines out. False for a tree too deep for the cleaning.
 */
function cleanedAsReturned(container: DomElement): boolean {
  for (const element of [...container.querySelectorAll('[id], [class]')]) {
    if (element.parentNode && namedComments(element) && !element.querySelector(DECLARED_ARTICLE)) element.remove();
  }
  try {
    cleanArticle(container);
    return true;
  } catch {
    return false;
  }
}

/** The page's footer: its `<footer>` and `contentinfo` blocks and those named for it (`site-footer`, `Footer_links`). */
function footerText(doc: DomDocument): string {
  const named = [...doc.querySelectorAll('footer, [role="contentinfo"], [class*="footer" i], [id*="footer" i]')].filter(
    (element) =>
      element.nodeName === 'FOOTER' ||
      element.getAttribute('role') === 'contentinfo' ||
      nameWords(`${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`).some((word) => word.toLowerCase() === 'footer'),
  );
  return outermostOf(named).map((element) => collapse(element.textContent)).join(' ');
}

/**
 * What mainOverArticle reads of the page as parsed, taken before Readability changes it: the text of the
 * page's footer, or null when the page has no one main element (the rule cannot fire).
 */
export function footerBeforeReading(doc: DomDocument): string | null {
  return mainElementOf(doc) ? footerText(doc) : null;
}

/**
 * Whether mainOverArticle may prefer the main element to `article`, told without the fresh parse it needs:
 * beside a long article (LONG_ARTICLE) only the footer rule can, when the article's samples are in the
 * page's footer (`footer`, from footerBeforeReading). Most pages with a `<main>` hold a long article, and
 * are spared the parse and the cleaning of their main element.
 */
export function mayPreferMain(article: DomElement | null, footer: string | null): boolean {
  if (footer === null) return false;
  if (!article || proseLength(article) < LONG_ARTICLE) return true;
  const samples = samplesOf(article);
  return samples.filter((sample) => footer.includes(sample)).length >= samples.length * INSIDE_SHARE;
}

/**
 * The page's main element with its furniture out, when it should replace Readability's article: it is
 * not navigation-like, holds some prose, and the article is either mostly outside it or holds less than
 * ARTICLE_SHARE of its prose. Null otherwise. `doc` is a fresh parse of the page (it is changed).
 */
export function mainOverArticle(doc: DomDocument, article: DomElement | null): DomElement | null {
  const main = mainElementOf(doc);
  if (!main) return null;
  removeFurniture(main);
  // Cards are the content of a page without an article (a listing); beside an article they are teasers of other stories.
  if (!article || proseLength(article) < ARTICLE_PROSE) unwrapCardLinks(main, doc);
  if (!cleanedAsReturned(main)) return null;
  const mainProse = proseLength(main);
  if (mainProse === 0 || isNavigationLike(main)) return null;
  if (!article) return mainProse >= MIN_PROSE ? main : null;
  const samples = samplesOf(article);
  const mainText = collapse(main.textContent);
  const inside = samples.filter((sample) => mainText.includes(sample)).length;
  const outside = samples.length > 0 && inside < samples.length * INSIDE_SHARE;
  // Readability, finding too little text on a short page (an error page, a form), tries again with fewer
  // blocks ruled out and may come back with the small print of the page's footer: the main element, however
  // short, is the content then.
  if (outside) {
    const footer = footerText(doc);
    if (samples.filter((sample) => footer.includes(sample)).length >= samples.length * INSIDE_SHARE) return main;
  }
  if (mainProse < MIN_PROSE) return null;
  const articleProse = proseLength(article);
  // An article elsewhere on the page gives way to the main element unless it is long: a blog whose <main>
  // holds only its related posts keeps its article.
  if (outside) return articleProse < LONG_ARTICLE ? main : null;
  return articleProse < LONG_ARTICLE && articleProse < mainProse * ARTICLE_SHARE ? main : null;
}

/** Cheap test on the source, so pages without a declared body are spared a second parse. */
export const mayDeclareArticleBody = (html: string): boolean => /articleBody|entry-content|post-content|article-body/.test(html);
/** The share of the declared body's prose under which Readability's article is one part of it (sections split by widgets). */
const BODY_SHARE = 0.6;

/** The page's one declared article body (the outermost, when they nest), or null when it has none or several. */
function declaredBodyOf(doc: DomDocument): DomElement | null {
  const outermost = outermostOf([...doc.querySelectorAll(ARTICLE_BODY)]);
  return outermost.length === 1 ? outermost[0] : null;
}

/**
 * The prose of the page's one declared article body, as parsed (before Readability changes the page): an
 * upper bound of its prose once cleaned (the cleaning only takes blocks out), so that pages where
 * Readability's article already holds BODY_SHARE of it are spared the second parse `bodyOverArticle` needs.
 */
export function declaredBodyProse(doc: DomDocument): number {
  const body = declaredBodyOf(doc);
  return body ? proseLength(body) : 0;
}

/** Whether Readability's article may be a run of a declared body of `bodyProse` characters of prose (worth `bodyOverArticle`). */
export const mayBeRunOfBody = (article: DomElement, bodyProse: number): boolean => proseLength(article) < bodyProse * BODY_SHARE;

/**
 * The page's one declared article body, cleaned, when Readability's article lies inside it but holds less
 * than BODY_SHARE of its prose: a long article whose sections are split by ads, tables or widgets, of
 * which Readability keeps the run around its best block. Null otherwise. `doc` is a fresh parse (changed).
 */
export function bodyOverArticle(doc: DomDocument, article: DomElement): DomElement | null {
  const body = declaredBodyOf(doc);
  if (!body) return null;
  removeFurniture(body);
  if (!cleanedAsReturned(body) || isNavigationLike(body)) return null;
  const samples = samplesOf(article);
  const bodyText = collapse(body.textContent);
  if (samples.length === 0 || samples.filter((sample) => bodyText.includes(sample)).length < samples.length * INSIDE_SHARE) return null;
  return proseLength(article) < proseLength(body) * BODY_SHARE ? body : null;
}

