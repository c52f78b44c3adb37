/**
 * Whether a `waitFor` selector is CSS a browser would take, checked without a browser so that a bad
 * one is a 400 before a scrape is charged or a crawl or map job starts (else every page of the job
 * fails in Chromium). css-what (the parser under cheerio) reads the grammar; it is lenient where
 * browsers are not, so what it lets through is checked further: a selector may not start or end with
 * a combinator, use its non-standard `<` (parent) or `||` (column) combinators, or name a tag, id or
 * class that is not a CSS identifier (`12abc`, `#123`, `.5`). Pseudo-classes are not checked by name:
 * Playwright adds its own (`:visible`, `:has-text()`), which the page's engine resolves.
 */
import { parse, type Selector } from 'css-what';

const TRAVERSALS = new Set(['descendant', 'child', 'parent', 'sibling', 'adjacent', 'column-combinator']);
/** A CSS identifier as written (escapes allowed), for tag names. */
const IDENT = /^(?:-?(?:[_a-zA-Z\u00a0-\uffff]|\\.)|--)(?:[-_a-zA-Z0-9\u00a0-\uffff]|\\.)*$/;

/** Why `selector` is not valid CSS, or undefined when it is. */
export function cssSelectorProblem(selector: string): string | undefined {
  let groups: Selector[][];
  try {
    groups = parse(selector);
  } catch (error) {
    return (error as Error).message;
  }
  for (const tokens of groups) {
    if (tokens.length === 0) return 'an empty selector';
    if (TRAVERSALS.has(tokens[0].type)) return 'it starts with a combinator';
    if (TRAVERSALS.has(tokens[tokens.length - 1].type)) return 'it ends with a combinator';
    for (const token of tokens) {
      if (token.type === 'parent' || token.type === 'column-combinator') return `"${token.type === 'parent' ? '<' : '||'}" is not a CSS combinator`;
      if (token.type === 'tag' && !IDENT.test(token.name)) return `"${token.name}" is not a tag name`;
    }
  }
  // An id or class written after # or . must be an identifier: css-what hands back the unescaped value,
  // so the raw text is read, strings, attribute brackets and pseudo-class arguments left out.
  let bare = selector.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""').replace(/\[[^\]]*\]/g, '[]');
  // Pseudo-class arguments are an+b formulas (2n+1) and nested selectors: left out, innermost first.
  for (let before = ''; before !== bare; ) [before, bare] = [bare, bare.replace(/\([^()]*\)/g, '')];
  const badName = /(?:^|[^\\])([#.]-?\d[^\s>+~,.#:[]*)/.exec(bare);
  if (badName) return `"${badName[1]}" is not an id or class name (a name cannot start with a digit)`;
  return undefined;
}
