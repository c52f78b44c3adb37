/**
 * Which elements of a page are a thread's replies: named as comments, marked up as a comment or an answer,
 * a forum's posts by their name, or, on a page that declares a thread, its posts by their make. discussion.ts
 * tells a thread from an article with them; thread.ts takes the thread whole.
 */
import { nameWords, type DomElement, type DomNode } from './dom.js';
import { namedComments } from './clean-article.js';
import { jsonLdNodes, typesOf } from './page-metadata.js';

/** A thread or a question page as JSON-LD types it. */
export const THREAD_TYPE = /^(?:DiscussionForumPosting|QAPage)$/;

/** An article, a blog post or a news story as JSON-LD types it (Article, NewsArticle, TechArticle, BlogPosting...). */
export const ARTICLE_TYPE = /^(?:\w*Article|BlogPosting|LiveBlogPosting)$/;

/** Elements whose text is no part of an article body: navigation, page furniture, controls, titles, links. */
export const NOT_PROSE = /^(?:NAV|HEADER|FOOTER|ASIDE|SCRIPT|STYLE|NOSCRIPT|TEMPLATE|SVG|SELECT|OPTION|TEXTAREA|BUTTON|LABEL|H1|H2|H3|H4|H5|H6|A|IFRAME|OBJECT)$/;

export const collapsed = (node: DomNode) => (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;

/** A reply by its schema.org markup (itemtype Comment or Answer, itemprop comment). */
const COMMENT_MARKUP = /schema\.org\/(?:Comment|Answer)\b|(?:^|\s)comment(?:\s|$)/i;

/** The comment form and its parts ("respond", "comment-form"): no replies in them. */
const FORM_NAME = /form|respond/i;

/** A reply marked up as a post of its own: schema.org itemtype Comment or Answer. */
const POST_MARKUP = /schema\.org\/(?:Comment|Answer)\b/i;

export const isMarkedPost = (element: DomElement) => POST_MARKUP.test(element.getAttribute('itemtype') ?? '');

/** Replies or a box of them: named as comments (not the comment form), or marked up as a comment or an answer. */
function isReplies(element: DomElement): boolean {
  if (COMMENT_MARKUP.test(`${element.getAttribute('itemtype') ?? ''} ${element.getAttribute('itemprop') ?? ''}`)) return true;
  return namedComments(element) && !FORM_NAME.test(`${element.getAttribute('id') ?? ''} ${element.getAttribute('class') ?? ''}`);
}

/** A comment section may be the page's content from this many reply elements. */
export const MIN_POSTS = 3;

/**
 * A forum's post by its name, where the engine marks up nothing (phpBB, MyBB): class `post` and an id that
 * ends in the post's number (`p550447`, `post_1324873`); with `byItsWord`, also a class holding a word for a
 * post that the numbered id repeats (numberedAsItsClass). A blog's article previews carry the same class
 * and id (WordPress: `post-123 post type-post hentry`) and are not posts of a thread.
 */
function isNamedPost(element: DomElement, byItsWord: boolean): boolean {
  const names = element.getAttribute('class') ?? '';
  const id = element.getAttribute('id') ?? '';
  if (!/\d$/.test(id) || /(?:^|\s)(?:type-post|hentry)(?:\s|$)/i.test(names)) return false;
  return /(?:^|\s)post(?:\s|$)/i.test(names) || (byItsWord && numberedAsItsClass(names, id));
}

/** A word of a name that says "one post of a thread" (in `ipsComment`, `ItemComment`, `message--post`, `crawler-post`). */
const POST_WORD = /^(?:post|comment|reply|message)$/i;

/**
 * A post numbered by the word of its class (Invision `article#elComment_4549108.ipsComment`, Vanilla
 * `li#Comment_2396250.ItemComment`, XenForo `article#js-post-123.message--post`, Discourse's
 * `div#post_3.crawler-post`): one of its class names holds a word for a post, and its id holds the same
 * word before the number.
 */
function numberedAsItsClass(names: string, id: string): boolean {
  const idWords = new Set(nameWords(id).map((word) => word.toLowerCase()));
  return nameWords(names).some((word) => POST_WORD.test(word) && idWords.has(word.toLowerCase()));
}

/** Posts named so (isNamedPost) that stand with at least MIN_POSTS - 1 others under one parent: the posts of a thread. */
function namedPosts(body: DomElement, byItsWord: boolean): DomElement[] {
  const candidates = [...body.querySelectorAll('[id][class]')].filter((element) => isNamedPost(element, byItsWord));
  const perParent = new Map<DomNode | null, number>();
  for (const element of candidates) perParent.set(element.parentNode, (perParent.get(element.parentNode) ?? 0) + 1);
  return candidates.filter((element) => (perParent.get(element.parentNode) ?? 0) >= MIN_POSTS);
}

/** Every reply element of the page (named as comments, marked up as a comment or an answer, or a forum's posts by name), nested ones included. */
export function replyElements(body: DomElement): DomElement[] {
  const replies = [...body.querySelectorAll('[class], [id], [itemtype], [itemprop]')].filter(isReplies);
  // Posts numbered under their class's word count only where the page marks up none of its replies as posts:
  // where it does (XenForo's schema.org Comment), the markup says which are the replies.
  const posts = namedPosts(body, !replies.some(isMarkedPost));
  const seen = new Set<DomElement>(replies);
  const found = posts.length === 0 ? replies : [...replies, ...posts.filter((post) => !seen.has(post))];
  // A page that declares a thread but names none of its posts (a forum built with generated class names):
  // the posts are known by their make alone.
  if (found.length >= MIN_POSTS) return found;
  const made = postsByMake(body);
  return made.length >= MIN_POSTS ? made : found;
}

/** A thread declared by the page itself: a JSON-LD item or a microdata item of type DiscussionForumPosting or QAPage, and no article's JSON-LD type. */
function threadDeclaredIn(body: DomElement): boolean {
  if (body.querySelector('[itemtype*="DiscussionForumPosting"], [itemtype*="QAPage"]')) return true;
  const doc = body.ownerDocument;
  if (!doc) return false;
  const types = jsonLdNodes(doc).flatMap(typesOf);
  return types.some((type) => THREAD_TYPE.test(type)) && !types.some((type) => ARTICLE_TYPE.test(type));
}

/** A date as a post's header shows it: 28/11/2025, 2025-11-28, Nov 28, 28 November, "3 hours ago", "yesterday at". */
const DATE_TEXT =
  /\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b\d+ ?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?) ago\b|\b(?:yesterday|today) at\b/i;

/** A post's header (its author and date) comes within this many characters of the post's start. */
const HEADER_CHARS = 200;

/** A post's body: a run of text of this length outside links (a sentence, not a title or a name). */
const PROSE_RUN = 30;

/** The post's date in its header: a <time> or [datetime] element, or a date written near the start of its text. */
function datedHeader(element: DomElement): boolean {
  if (element.querySelector('time, [datetime]')) return true;
  return DATE_TEXT.test((element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, HEADER_CHARS));
}

/** A run of prose outside links, controls and headings: the body of a post, not a list of topics or a user card. */
function holdsProse(element: DomElement): boolean {
  const stack: DomNode[] = [element];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === 3) {
      if ((node.textContent ?? '').replace(/\s+/g, ' ').trim().length >= PROSE_RUN) return true;
    } else if (node.nodeType === 1 && !NOT_PROSE.test(node.nodeName)) for (const child of node.childNodes) stack.push(child);
  }
  return false;
}

/** postsByMake's answer per parsed page: the thread rules ask for the replies up to five times, all before the page is changed (extract.ts). */
const madePosts = new WeakMap<DomElement, DomElement[]>();

/**
 * The posts of a declared thread whose engine names nothing (a React forum's `div.sc-dYdCZC`, ids that are
 * random keys): elements of one make (tag and class names), MIN_POSTS or more, none inside another, each
 * with a date in its header and, for most of them, a body of prose. Of the makes that qualify, the one
 * holding the most text (the post rather than its body or its header). Empty on a page that declares no
 * thread: a listing's items are made alike too.
 */
function postsByMake(body: DomElement): DomElement[] {
  const cached = madePosts.get(body);
  if (cached) return cached;
  let best: DomElement[] = [];
  if (threadDeclaredIn(body)) {
    const byMake = new Map<string, DomElement[]>();
    for (const element of body.querySelectorAll('[class]')) {
      const make = makeOf(element);
      if (!make || NOT_PROSE.test(element.nodeName)) continue;
      const list = byMake.get(make) ?? [];
      list.push(element);
      byMake.set(make, list);
    }
    let bestChars = 0;
    for (const elements of byMake.values()) {
      if (elements.length < MIN_POSTS || outermostOf(elements, body).length !== elements.length) continue;
      if (!elements.every(datedHeader) || elements.filter(holdsProse).length * 2 <= elements.length) continue;
      const chars = elements.reduce((sum, element) => sum + collapsed(element), 0);
      if (chars > bestChars) [best, bestChars] = [elements, chars];
    }
  }
  madePosts.set(body, best);
  return best;
}

/** The elements not inside another of the list: the comment boxes, without the replies nested in them. */
export function outermostOf(elements: DomElement[], body: DomElement): DomElement[] {
  const set = new Set<DomNode>(elements);
  return elements.filter((element) => {
    for (let parent = element.parentNode; parent && parent !== body; parent = parent.parentNode) if (set.has(parent)) return false;
    return true;
  });
}

/** The replies that hold no other reply: each one post, whatever the nesting of the thread. */
export function singleReplies(elements: DomElement[]): DomElement[] {
  const holders = new Set<DomNode>();
  for (const element of elements) for (let parent = element.parentNode; parent; parent = parent.parentNode) holders.add(parent);
  return elements.filter((element) => !holders.has(element));
}

/** An element's make: its tag and its class names in order (`DIV.Message userContent`); none for an element without classes. */
export function makeOf(element: DomElement): string | null {
  const names = (element.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean).sort().join(' ');
  return names ? `${element.nodeName}.${names}` : null;
}
