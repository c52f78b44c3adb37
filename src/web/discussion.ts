/**
 * Telling a discussion (a forum thread, a question and its answers, a comment page such as a Hacker
 * News item) from an article with reader comments below it. On the first the replies are the
 * content and the comment rules of clean-article.ts stay off; on the second the comments go.
 * docs/web-extraction.md has the figures each rule was kept on.
 */
import { contains, type DomElement, type DomNode } from './dom.js';
import { jsonLdNodes, typesOf } from './page-metadata.js';
import { ARTICLE_TYPE, collapsed, isMarkedPost, MIN_POSTS, NOT_PROSE, outermostOf, replyElements, singleReplies, THREAD_TYPE } from './replies.js';
import { BODY_SHARE, openingPostLikeReplies } from './thread.js';

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

const NOT_PROSE_ROLE = /^(?:navigation|banner|contentinfo|search|menu|menubar|dialog)$/;

/** Elements a paragraph's text runs through on its way to the block that holds it. */
const INLINE = /^(?:P|SPAN|B|STRONG|I|EM|U|S|SMALL|BIG|SUB|SUP|MARK|CODE|KBD|Q|CITE|ABBR|TIME|FONT|DEL|INS|DFN|VAR|SAMP|BDI|BDO|DATA|BR|WBR)$/;

/** An article body by its markup: schema.org's articleBody, the hAtom microformat's entry-content (blogs). */
const DECLARED_BODY = '[itemprop="articleBody"], .entry-content';

/** An article body holds at least this much prose (non-link text in paragraphs) in one block and its parent. */
export const ARTICLE_BODY = 500;

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
