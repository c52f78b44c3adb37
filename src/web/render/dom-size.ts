/**
 * The size a page's DOM would have once serialised, measured in the page before it is serialised: a
 * script can build a DOM of hundreds of megabytes, and `page.content()` would serialise all of it and
 * carry it over the DevTools pipe. The walk counts tags, attributes and text as the HTML would spell
 * them (close enough for a cap) and stops as soon as the count passes the cap, so a huge DOM costs only
 * the walk up to the cap. A string expression, evaluated as such: a function would be rewritten by the
 * TypeScript loader with helpers the page does not have (and Playwright does not call a function given
 * as a string).
 */
export function domSizeScript(cap: number): string {
  return `(${WALK})(${Math.floor(cap)})`;
}

const WALK = `(cap) => {
  let size = 0;
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
  for (let node = walker.currentNode; node; node = walker.nextNode()) {
    if (node.nodeType === 1) {
      size += node.nodeName.length * 2 + 5;
      for (const attribute of node.attributes) size += attribute.name.length + attribute.value.length + 4;
    } else if (node.nodeType === 3 || node.nodeType === 4 || node.nodeType === 7 || node.nodeType === 8) {
      size += node.data.length + 7;
    }
    if (size > cap) return size;
  }
  return size;
}`;
