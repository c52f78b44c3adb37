/**
 * A question-and-answer page by its schema.org microdata (a QAPage's Question, its Answers): the main
 * text is the question's body and every answer's body, in page order. Readability keeps one block, so
 * on such pages it returned the question or one long answer, with vote counts, user cards and comments.
 * docs/web-extraction.md (round 4) has the figures this rule was kept on.
 */
import { contains, type DomDocument, type DomElement, type DomNode } from './dom.js';

const QUESTION = /schema\.org\/Question\b/i;
const ANSWER = /schema\.org\/Answer\b/i;

/** Cheap test on the source, so pages without such markup are spared the walk (and the parse). */
export const mayBeQuestionPage = (html: string): boolean => /schema\.org\/Question\b/i.test(html) && /schema\.org\/Answer\b/i.test(html);

/** The item a property belongs to: the nearest element above it that opens an item (itemscope). */
function itemOf(property: DomElement, root: DomElement): DomElement | null {
  for (let at = property.parentNode as DomElement | null; at && at !== root.parentNode; at = at.parentNode as DomElement | null) {
    if (at.nodeType === 1 && at.hasAttribute('itemscope')) return at;
  }
  return null;
}

const itemtypeOf = (element: DomElement) => element.getAttribute('itemtype') ?? '';

/**
 * The bodies (schema.org property `text`) of a page's one question and its answers, moved into a new
 * element in page order; null unless the page has exactly one question item with a body of its own and
 * at least one answer item with one. An FAQ section (several questions, each with only a `name`) is not
 * such a page; comments (items of type Comment, with bodies of their own) stay out.
 */
export function questionAndAnswers(doc: DomDocument): DomElement | null {
  const body = doc.body;
  if (!body) return null;
  const questions = [...body.querySelectorAll('[itemscope][itemtype]')].filter((element) => QUESTION.test(itemtypeOf(element)));
  if (questions.length !== 1) return null;
  const [question] = questions;
  const posts: DomElement[] = [];
  let answers = 0;
  for (const property of body.querySelectorAll('[itemprop]')) {
    if (!/(?:^|\s)text(?:\s|$)/.test(property.getAttribute('itemprop') ?? '')) continue;
    const item = itemOf(property, body);
    if (!item) continue;
    const isAnswer = ANSWER.test(itemtypeOf(item));
    if (item !== question && !isAnswer) continue;
    // A body inside another body taken (quoted markup) comes with it.
    if (posts.some((post) => contains(post, property))) continue;
    posts.push(property);
    if (isAnswer) answers++;
  }
  if (answers === 0 || !posts.some((post) => itemOf(post, body) === question)) return null;
  const thread = doc.createElement('div');
  for (const post of posts) {
    const section = doc.createElement('div');
    section.append(post);
    thread.append(section);
  }
  return thread;
}
