/**
 * What Readability leaves in an article that is not the article: figure captions and photo credits,
 * breadcrumb trails, link lists (menus, related stories, tag lists) and bylines and dates. Run on the extracted article,
 * not the page: taken out before Readability, a byline can tip its choice to a comment section.
 * Each rule was measured on real pages before it was kept (docs/web-extraction.md has the figures).
 */
import { holdsTag, type DomElement, type DomNode } from './dom.js';

/**
 * Class names the rules below read: Readability strips every class it is not told to keep, so the
 * page's classes matching these are kept through it (extract.ts), else the class rules see nothing.
 */
export const CLEANING_CLASS = /caption|credit|byline|dateline|timestamp|publish|posted|author|breadcrumb|comment|respond|repl|disqus|tag|categor|related|recommend|bio|share|sharing|social|newsletter|subscribe|read-?more|read-?next|more-/i;

/**
 * Boxes that are not the article, by their class or id: reader comments and the comment form,
 * author boxes, related and recommended stories, tag and category lines, share and newsletter boxes.
 * Readability passes over a box whose name also says "content" or "article" ("comment-content",
 * "related-articles"), and then may choose it instead of a short post.
 */
const NOT_ARTICLE_NAME =
  /^(?:(?:wp|post|entry|article|blog|story|user|reader)[-_])?(?:author[-_]?(?:bio|box|info|card|profile|details|description|about|block|wrap)|about[-_]?(?:the[-_]?)?author|bio[-_]?box|related(?:[-_].*)?|recommend(?:ed|ations)?(?:[-_].*)?|read[-_]?(?:more|next|also)|more[-_](?:stories|articles|news|posts|from)(?:[-_].*)?|you[-_]?(?:may|might)[-_].*|also[-_]?like|tags?|tag[-_]?(?:list|links|cloud)|post[-_]?tags|entry[-_]?tags|categories|cat[-_]links|(?:social|share|sharing)(?:[-_].*)?|newsletter(?:[-_].*)?|subscribe(?:[-_].*)?)$/i;
/** Reader comments and the comment form, by name: not the article, except on a discussion page (where they are the content). */
const COMMENTS_NAME =
  /^(?:(?:wp|post|entry|article|blog|story|user|reader)[-_])?(?:comments?|comment[-_]?(?:list|area|section|form|respond|wrap(?:per)?|s[-_]area|thread|s[-_]wrap(?:per)?|s[-_]container|s[-_]section|container)|commentform|respond|comment[-_]?respond|replies|disqus(?:[-_]thread)?)$/i;
/** The share of the surrounding text above which a box is taken for the article itself, whatever its name. */
const BOX_SHARE = 0.5;

/** Captions and credits by their markup. */
const CAPTION_SELECTOR = 'figcaption, [class*="caption" i], [id*="caption" i], [class*="credit" i], [itemprop="caption"], [itemprop="copyrightHolder"]';
/** A caption's or credit's words, for those marked up as plain text. */
const CREDIT_TEXT = /(?:^|\s|\()(?:photo|image|picture|illustration)s?(?:\s+credit)?\s*:|credit\s*:|^\(?\s*(?:AP|AFP|Reuters|Getty)\b[^)]*\)?$|\(Image:[^)]*\)$|©/i;
/** Breadcrumb trails by their markup ("Home » News » the article's title"): links and the title, no article text. */
const BREADCRUMB_SELECTOR = '[class*="breadcrumb" i], [id*="breadcrumb" i], [itemtype*="BreadcrumbList" i], [aria-label*="breadcrumb" i]';
/** Bylines and dates by their markup. */
const BYLINE_SELECTOR =
  '[class*="byline" i], [id*="byline" i], [class*="dateline" i], [class*="timestamp" i], [class*="publish" i], [class*="posted" i], [class*="author" i], [rel="author"], [itemprop="author"], [itemprop="datePublished"], [itemprop="dateModified"], time';
/** A byline's or a date line's words. */
const BYLINE_TEXT = /^\W*(?:by\s+\p{Lu}|published\b|updated\b|posted\b|last (?:updated|modified)\b)/iu;
/** A line that is a date and time and little else ("Nov 19, 2019 6:55 AM", "18/11/2019 23:04"). */
const DATE_LINE = /^[^.!?]{0,40}(?:\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)[^.!?]{0,40}\b\d{1,2}[:h]\d{2}(?!\d)[^.!?]{0,20}$/i;

/** Small words that names and labels have in lower case ("Jane Doe and John Smith", "Anna de Souza"). */
const NAME_PARTICLES = /^(?:and|of|the|for|at|in|on|de|da|do|dos|van|von|der|den|le|la|y|und|et)$/;

/**
 * A sentence of the article rather than a label: it ends as a sentence does and it is mostly words
 * in lower case ("By Tuesday, the water had risen above the quay."), where a byline or a date line is
 * names, numbers and months ("By Jane Doe and John Smith, Associated Press.").
 */
export function isSentence(words: string): boolean {
  if (!/[.!?]["'”’)]?$/.test(words)) return false;
  const tokens = words.split(' ');
  const lower = tokens.filter((token) => /^\p{Ll}/u.test(token) && !NAME_PARTICLES.test(token)).length;
  return tokens.length >= 6 && lower >= 3 && lower * 2 >= tokens.length;
}

/** Blocks at most this long may be a caption, credit, byline or date line; longer ones are text. */
const SHORT = 200;
/** The share of link text above which a list or a short block is a list of links. */
const LINK_DENSITY = 0.7;
/** The longest average item of a list of links (a headline, a tag, a menu entry). */
const SHORT_ITEM = 80;
const LINK_BLOCKS = new Set(['P', 'DIV', 'SECTION', 'NAV', 'ASIDE', 'HEADER', 'FOOTER']);

/** Tag sets of the blocks that make an element more than one line (holdsTag). */
const MEDIA = new Set(['IMG', 'PICTURE', 'VIDEO']);
const CREDIT_HOLDS = new Set(['P', 'DIV', 'IMG']);
const PARAGRAPHS = new Set(['P', 'DIV']);
const LINE_HOLDS = new Set(['P', 'DIV', 'LI', 'H2', 'H3', 'H4']);

const text = (node: DomNode) => (node.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The smallest block around an element (the element itself when it is one). */
function blockOf(element: DomElement, root: DomElement): DomElement {
  let current: DomElement = element;
  while (current !== root && !/^(?:P|DIV|LI|SECTION|HEADER|FOOTER|ADDRESS|FIGURE|FIGCAPTION|SPAN|SMALL|TIME)$/.test(current.nodeName)) {
    const parent = current.parentNode as DomElement | null;
    if (!parent) break;
    current = parent;
  }
  return current;
}

function removeCaptions(root: DomElement): void {
  for (const element of [...root.querySelectorAll(CAPTION_SELECTOR)]) {
    if (!element.parentNode || holdsTag(element, MEDIA)) continue;
    if (text(element).length <= SHORT * 2) element.remove();
  }
  // Credits written as text beside an image: "Photo: AP", "(Image: Getty)", "Credit: EPA".
  for (const element of [...root.querySelectorAll('p, span, small, div, em, i')]) {
    if (!element.parentNode || holdsTag(element, CREDIT_HOLDS)) continue;
    const words = text(element);
    if (words && words.length <= SHORT && CREDIT_TEXT.test(words)) element.remove();
  }
}

function removeBreadcrumbs(root: DomElement): void {
  for (const element of [...root.querySelectorAll(BREADCRUMB_SELECTOR)]) {
    if (element.parentNode && element !== root && text(element).length <= SHORT && !element.querySelector('p p, h1, h2, h3, h4')) element.remove();
  }
}

function removeBylines(root: DomElement): void {
  for (const element of [...root.querySelectorAll(BYLINE_SELECTOR)]) {
    if (!element.parentNode) continue;
    const block = blockOf(element, root);
    if (block === root) continue;
    const words = text(block);
    // A date in a sentence ("opened on <time>1 June 1955</time> by ...") is part of what it says.
    if (element.nodeName === 'TIME' && element.parentNode && isSentence(text(block === element ? (element.parentNode as DomElement) : block))) continue;
    if (words.length <= SHORT / 2 && !block.querySelector('p p, h1, h2, h3, h4')) block.remove();
  }
  for (const element of [...root.querySelectorAll('p, div, span')]) {
    if (!element.parentNode || holdsTag(element, PARAGRAPHS)) continue;
    const words = text(element);
    if (words && words.length <= SHORT / 2 && (BYLINE_TEXT.test(words) || DATE_LINE.test(words)) && !isSentence(words)) element.remove();
  }
}

/**
 * Lists of links: one pass from the leaves up counts each element's text and link text, then the
 * outermost mostly-link blocks go.
 */
function removeLinkLists(root: DomElement): void {
  const chars = new Map<DomNode, [all: number, linked: number]>();
  const order: DomNode[] = [];
  const stack: DomNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    order.push(node);
    if (node.nodeType === 1) for (const child of node.childNodes) stack.push(child);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i];
    if (node.nodeType === 3) {
      chars.set(node, [(node.textContent ?? '').replace(/\s+/g, ' ').trim().length, 0]);
      continue;
    }
    if (node.nodeType !== 1) continue;
    let all = 0;
    let linked = 0;
    for (const child of node.childNodes) {
      const counts = chars.get(child);
      if (counts) {
        all += counts[0];
        linked += counts[1];
      }
    }
    chars.set(node, [all, node.nodeName === 'A' ? all : linked]);
  }
  const pending: DomElement[] = [root];
  while (pending.length) {
    const element = pending.pop()!;
    for (const child of [...element.childNodes]) {
      if (child.nodeType !== 1) continue;
      if (isLinkList(child as DomElement, chars.get(child) ?? [0, 0])) {
        removeTitleOf(child as DomElement);
        (child as DomElement).remove();
      } else pending.push(child as DomElement);
    }
  }
}

/** The heading of a removed list ("Related stories", "You may also like"), when it is short and right before it. */
function removeTitleOf(list: DomElement): void {
  const previous = (list as DomElement & { previousElementSibling?: DomElement | null }).previousElementSibling;
  if (previous && /^(?:H[2-6]|P|DIV|SPAN|STRONG)$/.test(previous.nodeName) && !previous.querySelector('a, img') && text(previous).length <= 40) {
    if (/^H[2-6]$/.test(previous.nodeName) || !/[.!?]$/.test(text(previous)) || /(?:\.\.\.|…)$/.test(text(previous))) previous.remove();
  }
}

/**
 * Menus, related stories and tag lists: a list whose text is mostly links in short items, or a
 * short block mostly of links. A list of real items that each carry a link (release notes, a
 * bibliography) has long items; tables (infoboxes) and single items stay.
 */
function isLinkList(element: DomElement, [all, linked]: [number, number]): boolean {
  if (all === 0 || linked / all <= LINK_DENSITY) return false;
  if (/^(?:UL|OL|DL)$/.test(element.nodeName)) {
    const items = [...element.childNodes].filter((child) => /^(?:LI|DT|DD)$/.test(child.nodeName)).length;
    return all / Math.max(1, items) <= SHORT_ITEM;
  }
  return LINK_BLOCKS.has(element.nodeName) && all <= SHORT * 2;
}

const namesOf = (element: DomElement) => `${element.getAttribute('id') ?? ''} ${element.getAttribute('class') ?? ''}`.split(/\s+/).filter(Boolean);

function namedNotArticle(element: DomElement, keepComments: boolean): boolean {
  return namesOf(element).some((name) => NOT_ARTICLE_NAME.test(name) || (!keepComments && COMMENTS_NAME.test(name)));
}

/** An element named as reader comments or the comment form (by its class or id). */
export function namedComments(element: DomElement): boolean {
  return namesOf(element).some((name) => COMMENTS_NAME.test(name));
}

/**
 * Comment sections, comment forms, author boxes, related and tag boxes by their class or id (see
 * NOT_ARTICLE_NAME), except one that holds the page's main element, or one without which too little text would stay.
 * Run on the page before Readability (so it cannot choose one of them) and on the article after it.
 */
export function removeNotArticleBoxes(root: DomElement, keepComments = false): void {
  // The text that stays, measured when a first box is found (most pages have none).
  let rest = -1;
  for (const element of [...root.querySelectorAll('[class], [id]')]) {
    if (!element.parentNode || element === root || /^(?:HTML|BODY|MAIN|ARTICLE)$/.test(element.nodeName) || !namedNotArticle(element, keepComments)) continue;
    if (element.querySelector('main, [role="main"], article, [itemprop="articleBody"], h1')) continue;
    // A long comment section may outweigh a short post: what stays must still be some text.
    if (rest < 0) rest = text(root).length;
    const length = text(element).length;
    if (rest - length < SHORT / 2) continue;
    rest -= length;
    element.remove();
  }
}

/** Headings that open the comments ("Leave a Reply", "3 Responses to ...", "Comments"): the rest of their block goes with them. */
const COMMENT_HEADING = /^(?:\d+\s+)?(?:comments?|responses?(?: to\b.*)?|thoughts? on\b.*|leave a (?:reply|comment)|post a comment|add (?:a |your )?comment|join the (?:discussion|conversation)|reader comments|what do you think\??)\s*(?:\(\d+\))?:?$/i;
/** Headings that open a box of other stories ("You may also like", "Recommended reading", "More from …"). */
const RELATED_HEADING = /^(?:recommended (?:reading|for you|articles|stories|posts|content|videos)|related (?:articles|posts|stories|reading|content|coverage|news|links)|you (?:may|might) (?:also )?(?:like|enjoy|be interested in)|more from\b.{1,40}|read (?:next|also)|(?:most )?popular (?:posts|stories|articles)|trending (?:now|stories))\s*:?$/i;
/** A box of other stories closes the article: at most this share of the article's text comes after its heading. */
const RELATED_TAIL_SHARE = 0.2;

/** The text that follows a node in the article, in page order (its siblings', and its ancestors' later siblings'). */
function textAfter(node: DomNode, root: DomElement): number {
  let length = 0;
  for (let at: DomNode | null = node; at && at !== root; at = at.parentNode) {
    for (let next = at.nextSibling ?? null; next; next = next.nextSibling ?? null) length += text(next).length;
  }
  return length;
}

/** The lines of a comment form and of the notes around it. */
const FORM_TEXT =
  /^(?:name|e-?mail|website|url|comment|message)\s*(?:\*|\(required\)|\(will not be published\)(?: \(required\))?)|required fields are marked|your email address will not be published|save my name,? email|notify me of (?:follow-up comments|new posts|new comments)|you must be (?:logged in|registered) to post|this site uses akismet|^cancel reply$|^(?:log ?in|sign ?in) to (?:reply|comment)/i;
/** Tag and category lines ("Tags: a, b", "Filed under: News"). */
const TAG_LINE = /^(?:tags?|tagged(?: with| as| in)?|filed (?:under|in)|categor(?:y|ies)|topics?|labels?|keywords)\s*:|^(?:tagged|filed under)\s/i;

function removeCommentsAndTags(root: DomElement, keepComments: boolean): void {
  const total = text(root).length;
  for (const element of [...root.querySelectorAll('form, label')]) {
    if (element.parentNode && text(element).length <= total * BOX_SHARE) element.remove();
  }
  for (const element of [...root.querySelectorAll('h2, h3, h4, h5, h6, p, div, span, li, dt, dd, strong, b')]) {
    if (!element.parentNode || holdsTag(element, LINE_HOLDS)) continue;
    const words = text(element);
    if (!words || words.length > SHORT) continue;
    if (FORM_TEXT.test(words) || (TAG_LINE.test(words) && !isSentence(words))) {
      element.remove();
      continue;
    }
    const related = RELATED_HEADING.test(words) && textAfter(element, root) <= total * RELATED_TAIL_SHARE;
    if (words.length <= 80 && ((!keepComments && COMMENT_HEADING.test(words)) || related)) {
      // The heading and what follows it in its block, when that is not most of the article.
      const following: DomNode[] = [];
      for (let next = element.nextSibling ?? null; next; next = next.nextSibling ?? null) following.push(next);
      const after = following.reduce((sum, node) => sum + text(node).length, 0);
      if (after <= total * BOX_SHARE) {
        for (const node of following) (node as DomElement).remove();
        element.remove();
      }
    }
  }
}

export function cleanArticle(root: DomElement, keepComments = false): void {
  removeNotArticleBoxes(root, keepComments);
  removeCommentsAndTags(root, keepComments);
  removeCaptions(root);
  removeBreadcrumbs(root);
  removeBylines(root);
  removeLinkLists(root);
}
