/**
 * A thread taken whole: its posts (the replies holding no other), what of them an article kept, and the
 * smallest element holding them all with the opening post.
 */
import { contains, type DomElement, type DomNode } from './dom.js';
import { collapsed, makeOf, outermostOf, replyElements, singleReplies } from './replies.js';

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

/** A part of a post holds at least this share of the post's text, on average over the posts: its body (or the body's wrapper). */
export const BODY_SHARE = 0.5;

/**
 * The opening post of a thread whose engine builds it like the replies but outside their list (Vanilla's
 * discussion above its comments): the make (tag and classes) of the part that holds most of each reply's
 * text, found in at least two replies, is looked for outside the reply boxes; the element of that make
 * with the most text is the opening post's body. Null when no reply part is shared, or none is outside.
 */
export function openingPostLikeReplies(body: DomElement, boxes: DomElement[], replies: DomElement[]): DomElement | null {
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
