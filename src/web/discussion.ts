/**
 * Telling a discussion (a forum thread, a question and its answers, a comment page such as a Hacker
 * News item) from an article with reader comments below it. On the first the replies are the
 * content and the comment rules of clean-article.ts stay off; on the second the comments go.
 * docs/web-extraction.md has the figures each rule was kept on.
 */
import { contains, nameWords, type DomElement, type DomNode } from './dom.js';
import { namedComments } from './clean-article.js';
import { jsonLdNodes, typesOf } from './page-metadata.js';

/**
 * A discussion by its schema.org markup (DiscussionForumPosting, QAPage, Question, Comment) and the
 * absence of an article's. A Question inside an FAQPage is a shop's or a service's FAQ section, not a
 * question asked by a reader: one in ten pages of the modern set declares one (docs/web-extraction.md, round 7).
 */
export function hasDiscussionMarkup(html: string): boolean {
  if (/og:type"?\s+content="article|content="article"\s+property="og:type|"(?:News)?Article"|BlogPosting/.test(html)) return false;
  if (/DiscussionForumPosting|QAPage|itemtype="[^"]*Comment/.test(html)) return true;
  return /schema\.org\/Question|"@type"\s*:\s*"Question"/.test(html) && !/FAQPage/.test(html);
}

/** A thread or a question page as JSON-LD types it. */
const THREAD_TYPE = /^(?:DiscussionForumPosting|QAPage)$/;
/** An article, a blog post or a news story as JSON-LD types it (Article, NewsArticle, TechArticle, BlogPosting...). */
const ARTICLE_TYPE = /^(?:\w*Article|BlogPosting|LiveBlogPosting)$/;

/**
 * A thread declared in the page's JSON-LD: an item (top level or in @graph) of type DiscussionForumPosting
 * or QAPage, and none of an article's type. Forum engines (Invision, Vanilla, NodeBB) set og:type
 * "article" on every topic, which the markup test above takes for an article; the JSON-LD says what the
 * page is, so og:type does not outweigh it here.
 */
export function declaresThread(html: string, body: DomElement | null): boolean {
  const doc = body?.ownerDocument;
  if (!doc || !/DiscussionForumPosting|QAPage/.test(html) || !/application\/ld\+json/i.test(html)) return false;
  const types = jsonLdNodes(doc).flatMap(typesOf);
  return types.some((type) => THREAD_TYPE.test(type)) && !types.some((type) => ARTICLE_TYPE.test(type));
}

/** Elements whose text is no part of an article body: navigation, page furniture, controls, titles, links. */
const NOT_PROSE = /^(?:NAV|HEADER|FOOTER|ASIDE|SCRIPT|STYLE|NOSCRIPT|TEMPLATE|SVG|SELECT|OPTION|TEXTAREA|BUTTON|LABEL|H1|H2|H3|H4|H5|H6|A|IFRAME|OBJECT)$/;
const NOT_PROSE_ROLE = /^(?:navigation|banner|contentinfo|search|menu|menubar|dialog)$/;
/** Elements a paragraph's text runs through on its way to the block that holds it. */
const INLINE = /^(?:P|SPAN|B|STRONG|I|EM|U|S|SMALL|BIG|SUB|SUP|MARK|CODE|KBD|Q|CITE|ABBR|TIME|FONT|DEL|INS|DFN|VAR|SAMP|BDI|BDO|DATA|BR|WBR)$/;

/** A reply by its schema.org markup (itemtype Comment or Answer, itemprop comment). */
const COMMENT_MARKUP = /schema\.org\/(?:Comment|Answer)\b|(?:^|\s)comment(?:\s|$)/i;
/** The comment form and its parts ("respond", "comment-form"): no replies in them. */
const FORM_NAME = /form|respond/i;

/** A reply marked up as a post of its own: schema.org itemtype Comment or Answer. */
const POST_MARKUP = /schema\.org\/(?:Comment|Answer)\b/i;
const isMarkedPost = (element: DomElement) => POST_MARKUP.test(element.getAttribute('itemtype') ?? '');

/** Replies or a box of them: named as comments (not the comment form), or marked up as a comment or an answer. */
function isReplies(element: DomElement): boolean {
  if (COMMENT_MARKUP.test(`${element.getAttribute('itemtype') ?? ''} ${element.getAttribute('itemprop') ?? ''}`)) return true;
  return namedComments(element) && !FORM_NAME.test(`${element.getAttribute('id') ?? ''} ${element.getAttribute('class') ?? ''}`);
}

/** An article body by its markup: schema.org's articleBody, the hAtom microformat's entry-content (blogs). */
const DECLARED_BODY = '[itemprop="articleBody"], .entry-content';
/** An article body holds at least this much prose (non-link text in paragraphs) in one block and its parent. */
export const ARTICLE_BODY = 500;
/** A comment section may be the page's content from this many reply elements. */
const MIN_POSTS = 3;

export interface ThreadSignals {
  /** Comment elements (named so, or marked up as one), nested ones included: the comment list, each comment, its body... */
  posts: number;
  /** Text of the outermost comment-named boxes. */
  commentChars: number;
  /** Non-link text outside the comment boxes and the page's furniture. */
  proseChars: number;
  /** The most prose in one block (with the blocks right inside it) outside the comment boxes: the article body, if any. */
  bodyChars: number;
  /** An article body declared outside the comment boxes (schema.org articleBody, the hAtom microformat's entry-content). */
  declaredBody: boolean;
  /** The text of the longest single reply (a reply element holding no other): how long a post of this page can be. */
  longestReply: number;
  /** Replies marked up as posts (schema.org itemtype Comment or Answer), not only named so. */
  markedPosts: number;
  /** The article body (the block of most prose outside the replies) is a post built like the replies (openingPostLikeReplies). */
  postLikeReplies: boolean;
}


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
function replyElements(body: DomElement): DomElement[] {
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
function outermostOf(elements: DomElement[], body: DomElement): DomElement[] {
  const set = new Set<DomNode>(elements);
  return elements.filter((element) => {
    for (let parent = element.parentNode; parent && parent !== body; parent = parent.parentNode) if (set.has(parent)) return false;
    return true;
  });
}

/** The replies that hold no other reply: each one post, whatever the nesting of the thread. */
function singleReplies(elements: DomElement[]): DomElement[] {
  const holders = new Set<DomNode>();
  for (const element of elements) for (let parent = element.parentNode; parent; parent = parent.parentNode) holders.add(parent);
  return elements.filter((element) => !holders.has(element));
}

/** A post that others comment on, by its schema.org type: a question, an answer, a comment (a forum's thread as a whole, DiscussionForumPosting, holds its posts rather than comments on it). */
const COMMENTED_ITEM = /schema\.org\/(?:Comment|Answer|Question)\b/i;

/**
 * The thread's own posts: the replies holding no other reply, except comments on another post (a question
 * and answer site's comments under each answer are not what a reader of the thread reads first).
 */
function threadPosts(body: DomElement): DomElement[] {
  const onPost = (element: DomElement) => {
    for (let parent = element.parentNode as DomElement | null; parent && parent !== body; parent = parent.parentNode as DomElement | null) {
      if (parent.nodeType === 1 && COMMENTED_ITEM.test(parent.getAttribute('itemtype') ?? '')) return true;
    }
    return false;
  };
  return singleReplies(replyElements(body)).filter((element) => !onPost(element));
}

/** A reply's text is looked for in an article by its longest run of text, when it has one of this length. */
const SAMPLE_CHARS = 30;

/** Each post's longest run of text (whitespace collapsed) and the post's length: to tell which posts an article kept. */
export function replySamples(body: DomElement): Array<[sample: string, chars: number]> {
  const samples: Array<[string, number]> = [];
  for (const reply of threadPosts(body)) {
    let sample = '';
    const stack: DomNode[] = [reply];
    while (stack.length) {
      const node = stack.pop()!;
      if (node.nodeType === 3) {
        const run = (node.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (run.length > sample.length) sample = run;
      } else if (node.nodeType === 1 && !/^(?:SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(node.nodeName)) for (const child of node.childNodes) stack.push(child);
    }
    if (sample.length >= SAMPLE_CHARS) samples.push([sample, collapsed(reply)]);
  }
  return samples;
}

/** The share of the posts' text (by their samples) that an article's text holds. */
export function repliesKept(samples: Array<[string, number]>, articleText: string): number {
  const total = samples.reduce((sum, [, chars]) => sum + chars, 0);
  const kept = samples.reduce((sum, [sample, chars]) => sum + (articleText.includes(sample) ? chars : 0), 0);
  return total > 0 ? kept / total : 1;
}

/** Text of the page's outermost reply boxes: what a thread's main text should hold. */
export function repliesLength(body: DomElement): number {
  return outermostOf(replyElements(body), body).reduce((sum, element) => sum + collapsed(element), 0);
}

function ancestorsOf(node: DomNode, body: DomElement): DomNode[] {
  const chain: DomNode[] = [];
  for (let at: DomNode | null = node; at && at !== body; at = at.parentNode) chain.push(at);
  return chain;
}

/** The smallest element holding all the nodes given (the body when only the body holds them all). */
function commonContainer(nodes: DomNode[], body: DomElement): DomElement {
  const [first, ...rest] = nodes;
  if (!first) return body;
  let chain = ancestorsOf(first, body);
  for (const node of rest) {
    const theirs = new Set(ancestorsOf(node, body));
    const at = chain.findIndex((ancestor) => theirs.has(ancestor));
    if (at < 0) return body;
    chain = chain.slice(at);
  }
  return (chain[0] as DomElement | undefined) ?? body;
}

/** An element's make: its tag and its class names in order (`DIV.Message userContent`); none for an element without classes. */
function makeOf(element: DomElement): string | null {
  const names = (element.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean).sort().join(' ');
  return names ? `${element.nodeName}.${names}` : null;
}

/** A part of a post holds at least this share of the post's text, on average over the posts: its body (or the body's wrapper). */
const BODY_SHARE = 0.5;

/**
 * The opening post of a thread whose engine builds it like the replies but outside their list (Vanilla's
 * discussion above its comments): the make (tag and classes) of the part that holds most of each reply's
 * text, found in at least two replies, is looked for outside the reply boxes; the element of that make
 * with the most text is the opening post's body. Null when no reply part is shared, or none is outside.
 */
function openingPostLikeReplies(body: DomElement, boxes: DomElement[], replies: DomElement[]): DomElement | null {
  if (replies.length < 2) return null;
  // For each make inside the replies: in how many replies it is, and the share of their text it holds.
  const seen = new Map<string, { posts: number; share: number }>();
  for (const reply of replies) {
    const replyChars = collapsed(reply);
    if (!replyChars) continue;
    const inThis = new Map<string, number>();
    for (const part of reply.querySelectorAll('[class]')) {
      const make = makeOf(part);
      if (make) inThis.set(make, Math.max(inThis.get(make) ?? 0, collapsed(part)));
    }
    for (const [make, chars] of inThis) {
      const entry = seen.get(make) ?? { posts: 0, share: 0 };
      entry.posts++;
      entry.share += chars / replyChars;
      seen.set(make, entry);
    }
  }
  const bodyMakes = new Set([...seen].filter(([, { posts, share }]) => posts >= 2 && share / replies.length >= BODY_SHARE).map(([make]) => make));
  if (bodyMakes.size === 0) return null;
  // The opening post comes before the replies (after them, a post-like box is the reply form or an editor).
  const boxSet = new Set<DomNode>(boxes);
  let best: DomElement | null = null;
  for (const element of body.querySelectorAll('*')) {
    if (boxSet.has(element)) break;
    const make = makeOf(element);
    if (!make || !bodyMakes.has(make) || boxes.some((box) => contains(element, box)) || inForm(element, body)) continue;
    if (!best || collapsed(element) > collapsed(best)) best = element;
  }
  return best && collapsed(best) > 0 ? best : null;
}

/** Inside a form, or holding a text field: the reply form and its editor, which forums build like a post. */
function inForm(element: DomElement, body: DomElement): boolean {
  if (element.querySelector('textarea, [contenteditable="true"]')) return true;
  for (let at = element.parentNode as DomElement | null; at && at !== body; at = at.parentNode as DomElement | null) if (at.nodeName === 'FORM') return true;
  return false;
}

/** A thread's container holds at most this multiple of its replies' text, opening post included (more is the page around them). */
const OPENING_POST_SHARE = 1.25;

/** The page's title as a heading: its first <h1>, or an element given heading level 1. */
const MAIN_HEADING = 'h1, [role="heading"][aria-level="1"]';

/**
 * The whole discussion of a thread page: the smallest element holding all its reply boxes, widened
 * to the opening post when the page has a main heading (the thread's title, which opens the post)
 * outside them, unless only the body holds both (then the rest of the page would come with it).
 * Null when the page has no reply boxes, or no container of them that is mostly replies.
 */
export function threadContainer(body: DomElement): DomElement | null {
  const boxes = outermostOf(replyElements(body), body);
  if (boxes.length === 0) return null;
  const replies = commonContainer(boxes, body);
  const repliesChars = boxes.reduce((sum, element) => sum + collapsed(element), 0);
  // Replies scattered over the page (a sidebar's latest comments beside the posts): no one container is the thread.
  if (replies === body || collapsed(replies) > repliesChars * OPENING_POST_SHARE) return null;
  const heading = body.querySelector(MAIN_HEADING);
  // An opening post built like the replies but outside their list (Vanilla): the container widened to it
  // (and to the title when that adds little), if the wrapper of both is mostly the two.
  const opening = openingPostLikeReplies(body, boxes, singleReplies(replyElements(body)));
  if (opening) {
    const bound = (collapsed(replies) + collapsed(opening)) * OPENING_POST_SHARE;
    for (const targets of [heading ? [replies, opening, heading] : [], [replies, opening]]) {
      if (!targets.length) continue;
      const withPost = commonContainer(targets, body);
      if (withPost !== body && collapsed(withPost) <= bound) return withPost;
    }
  }
  if (!heading || ancestorsOf(heading, body).includes(replies)) return replies;
  const withPost = commonContainer([replies, heading], body);
  // The opening post and its title, not the page around them (a forum's sidebars share the wrapper too).
  return withPost === body || collapsed(withPost) > collapsed(replies) * OPENING_POST_SHARE ? replies : withPost;
}

const collapsed = (node: DomNode) => (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;

/** What tells a thread from an article on a page without discussion markup (see isThreadPage). */
export function threadSignals(body: DomElement): ThreadSignals {
  const named = replyElements(body);
  // Too few to be a discussion: the walk below is spared (most pages).
  if (named.length < MIN_POSTS) return { posts: named.length, commentChars: 0, proseChars: 0, bodyChars: 0, declaredBody: false, longestReply: 0, markedPosts: 0, postLikeReplies: false };
  const outermost = outermostOf(named, body);
  const boxes = new Set<DomNode>(outermost);
  const inBox = (element: DomElement) => {
    for (let node: DomNode | null = element; node && node !== body; node = node.parentNode) if (boxes.has(node)) return true;
    return false;
  };
  const declaredBody = [...body.querySelectorAll(DECLARED_BODY)].some((element) => !inBox(element));
  const commentChars = outermost.reduce((sum, element) => sum + collapsed(element), 0);

  // Prose outside the boxes, by the block that holds it (a paragraph's text counts for the block around
  // the paragraph, and for that block's parent, so an article split into one wrapper per paragraph still adds up).
  const pooled = new Map<DomNode, number>();
  let proseChars = 0;
  const stack: Array<[DomNode, DomNode]> = [[body, body]];
  while (stack.length) {
    const [node, block] = stack.pop()!;
    if (node.nodeType === 3) {
      const length = (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;
      if (!length) continue;
      proseChars += length;
      pooled.set(block, (pooled.get(block) ?? 0) + length);
      const parent = block.parentNode;
      if (parent && block !== body) pooled.set(parent, (pooled.get(parent) ?? 0) + length);
      continue;
    }
    if (node.nodeType !== 1 || boxes.has(node)) continue;
    const element = node as DomElement;
    if (NOT_PROSE.test(element.nodeName) || NOT_PROSE_ROLE.test(element.getAttribute('role') ?? '') || element.hasAttribute('hidden')) continue;
    const inner = node === body || !INLINE.test(element.nodeName) ? node : block;
    for (const child of element.childNodes) stack.push([child, inner]);
  }
  let bodyChars = 0;
  let bodyBlock: DomNode | null = null;
  for (const [block, chars] of pooled) if (chars > bodyChars) [bodyChars, bodyBlock] = [chars, block];
  const singles = singleReplies(named);
  const longestReply = Math.max(0, ...singles.map(collapsed));
  // The block of most prose is the opening post when it is, holds, or mostly is an element built like the replies' bodies.
  const opening = bodyBlock ? openingPostLikeReplies(body, outermost, singles) : null;
  const postLikeReplies =
    !!opening && !!bodyBlock && (opening === bodyBlock || contains(opening, bodyBlock) || (contains(bodyBlock, opening) && collapsed(opening) >= bodyChars * BODY_SHARE));
  return { posts: named.length, commentChars, proseChars, bodyChars, declaredBody, longestReply, markedPosts: named.filter(isMarkedPost).length, postLikeReplies };
}

/**
 * A page whose content is a discussion, told by its structure when it carries no markup of one: it
 * has a comment section (several reply elements) holding more text than the rest of the page, and no
 * article body outside it: none declared (articleBody, entry-content) and no block of ARTICLE_BODY
 * characters of prose, or, when the replies are marked up as posts (schema.org Comment or Answer), no
 * block longer than the longest reply (the opening post of a forum thread outside the replies' list is
 * a post among posts). An article with comments below it has its body outside the comments, however
 * long they are, and longer than each of them.
 */
export function isThreadPage(body: DomElement): boolean {
  const { posts, commentChars, proseChars, bodyChars, declaredBody, longestReply, markedPosts, postLikeReplies } = threadSignals(body);
  // A post among posts: an opening post no longer than one of the replies, when they are marked up as posts,
  // or one built like the replies (the same make of body).
  const postSized = (markedPosts >= MIN_POSTS || postLikeReplies) && bodyChars < longestReply;
  return posts >= MIN_POSTS && commentChars > proseChars && (bodyChars < ARTICLE_BODY || postSized) && !declaredBody;
}

/** A discussion page, by its markup or by its structure: its replies are its content. */
export function isDiscussionPage(html: string, body: DomElement | null): boolean {
  return hasDiscussionMarkup(html) || declaresThread(html, body) || (body !== null && isThreadPage(body));
}
