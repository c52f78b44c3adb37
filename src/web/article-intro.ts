/**
 * The text between a page's title and Readability's article. Readability keeps one block and the
 * siblings that score well with it; a guide whose intro sits in its own block before the body (a
 * hero section of two paragraphs, a summary box, a lead in another wrapper) lost the intro, and the
 * gold of the public sets keeps it. When the page's one `h1` comes before the article's block, the
 * prose blocks between the two are put back in front of the article.
 * docs/web-extraction.md (round 5) has the figures this rule was kept on.
 */
import type { DomDocument, DomElement, DomNode } from './dom.js';
import { isNavigationLike, proseLength } from './navigation.js';

/** Furniture and controls inside the blocks taken (menus, share bars, forms, buttons, hidden parts). */
const NOT_INTRO =
  'script, style, noscript, template, link, meta, svg, canvas, iframe, object, embed, nav, aside, footer, form, input, button, select, textarea, dialog, [role="navigation"], [role="dialog"], [role="search"], [hidden], [aria-hidden="true"], figure, img, picture, video';
/** A block between the title and the article is taken when it holds this much prose (runs of 40 characters and more outside links). */
const MIN_PROSE = 80;
/** The intro taken is at most this share of the article's own prose (a page-long block before it is not an intro). */
const MAX_SHARE = 1;

const collapse = (value: string | null | undefined) => (value ?? '').replace(/\s+/g, ' ').trim();

/** The article's first runs of text of some length, in order: where it starts on the page. */
function firstRuns(article: DomElement, count: number): string[] {
  const runs: string[] = [];
  const stack: DomNode[] = [article];
  while (stack.length && runs.length < count) {
    const node = stack.pop()!;
    if (node.nodeType === 3) {
      const run = collapse(node.textContent);
      if (run.length >= 40) runs.push(run.slice(0, 80));
    } else if (node.nodeType === 1) {
      const children = [...node.childNodes];
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return runs;
}

/** The element of the page holding a run of the article's text (its text node's parent). */
function holderOf(doc: DomDocument, run: string): DomElement | null {
  const stack: DomNode[] = doc.body ? [doc.body] : [];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === 3) {
      if (collapse(node.textContent).startsWith(run)) return node.parentNode as DomElement;
    } else if (node.nodeType === 1 && !/^(?:SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(node.nodeName)) {
      const children = [...node.childNodes];
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return null;
}

const ancestors = (node: DomNode): DomNode[] => {
  const chain: DomNode[] = [];
  for (let at: DomNode | null = node; at; at = at.parentNode) chain.push(at);
  return chain;
};

/** Cheap test on the source: one `h1`, so pages without a title or with several are spared a second parse. */
export const mayHaveIntro = (html: string): boolean => (html.match(/<h1[\s>]/gi) ?? []).length === 1;

/** The smallest element holding all the given nodes. */
function commonAncestor(nodes: DomNode[]): DomElement | null {
  if (!nodes.length) return null;
  let chain = ancestors(nodes[0]);
  for (const node of nodes.slice(1)) {
    const other = new Set(ancestors(node));
    chain = chain.filter((at) => other.has(at));
  }
  return (chain[0] as DomElement) ?? null;
}

const contains = (ancestor: DomNode, node: DomNode) => ancestors(node).includes(ancestor);

/**
 * The prose blocks between the page's one `h1` and the block of Readability's article, as elements of
 * `doc` (a fresh parse of the page, changed here), in page order; empty when the title is not before
 * the article's block, or nothing between them is prose.
 */
export function introBeforeArticle(doc: DomDocument, article: DomElement): DomElement[] {
  const titles = [...doc.querySelectorAll('h1')];
  if (titles.length !== 1) return [];
  const [title] = titles;
  const holders = firstRuns(article, 3)
    .map((run) => holderOf(doc, run))
    .filter((holder): holder is DomElement => holder !== null);
  const block = commonAncestor(holders);
  if (!block || contains(block, title) || contains(title, block)) return [];
  // From the article's block up to the block that holds the title too: the siblings before each level,
  // back to the one that holds the title (or the title itself), are between the two.
  const taken: DomElement[] = [];
  let reached = false;
  for (let level: DomNode = block; level.parentNode && !reached; level = level.parentNode) {
    const before: DomElement[] = [];
    for (let sibling = level.previousSibling ?? null; sibling; sibling = sibling.previousSibling ?? null) {
      if (sibling === title || contains(sibling, title)) {
        reached = true;
        break;
      }
      if (sibling.nodeType === 1) before.unshift(sibling as DomElement);
    }
    taken.unshift(...before);
    // The title in this parent but not before the article's block: it comes after the article.
    if (!reached && contains(level.parentNode, title)) return [];
  }
  if (!reached) return [];
  const intro: DomElement[] = [];
  for (const element of taken) {
    for (const inner of [...element.querySelectorAll(NOT_INTRO)]) inner.remove();
    if (/^(?:NAV|ASIDE|FOOTER|FORM|HEADER|SCRIPT|STYLE|FIGURE)$/.test(element.nodeName)) continue;
    if (proseLength(element) < MIN_PROSE || isNavigationLike(element)) continue;
    intro.push(element);
  }
  const introProse = intro.reduce((sum, element) => sum + proseLength(element), 0);
  return introProse > 0 && introProse <= proseLength(article) * MAX_SHARE ? intro : [];
}
