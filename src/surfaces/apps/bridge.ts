/**
 * The view side of the MCP Apps protocol (io.modelcontextprotocol/ui, 2026-01-26), as script text
 * every app inlines: JSON-RPC 2.0 over postMessage with the host window (ui/initialize, then
 * ui/notifications/initialized; tool results arrive as ui/notifications/tool-result). Hand-written
 * rather than the ext-apps App class: that bundles the SDK and zod (540 KB) into each app.
 */
export const BRIDGE_JS = String.raw`
const bridge = (() => {
  const pending = new Map();
  const handlers = {};
  let nextId = 1;
  const post = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if ('id' in message && !('method' in message)) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (waiting) message.error ? waiting.reject(new Error(message.error.message)) : waiting.resolve(message.result);
      return;
    }
    const handler = handlers[message.method];
    if (!('id' in message)) return handler && handler(message.params || {});
    Promise.resolve(handler ? handler(message.params || {}) : {}).then(
      (result) => post({ id: message.id, result: result || {} }),
      (error) => post({ id: message.id, error: { code: -32603, message: String(error && error.message) } }),
    );
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      post({ id, method, params });
    });
  const notify = (method, params) => post({ method, params });
  const on = (method, handler) => (handlers[method] = handler);
  const host = {};
  const start = async (name) => {
    const result = await request('ui/initialize', { appInfo: { name, version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' });
    Object.assign(host, result);
    notify('ui/notifications/initialized', {});
    const size = () => notify('ui/notifications/size-changed', { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight });
    new ResizeObserver(size).observe(document.body);
    return result;
  };
  /** Links open through the host (the view is sandboxed): only http(s) ones. */
  const openLink = (url) => /^https?:\/\//i.test(url) && request('ui/open-link', { url }).catch(() => undefined);
  /** The page as data: the result's _meta (which hosts do not give the model), else structuredContent. */
  const pageOf = (result) => (result._meta && result._meta['gleaner/page']) || result.structuredContent || {};
  const el = (tag, props, ...children) => {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children) if (child !== undefined && child !== null) node.append(child);
    return node;
  };
  /**
   * The later pages of a paged result, through the host (tools/call with the cursor alone: free), when
   * the host proxies calls to the server and says which tool ran; each page's data goes to onPage.
   */
  const nextPages = async (result, onPage) => {
    const tool = host.hostContext && host.hostContext.toolInfo && host.hostContext.toolInfo.tool.name;
    let cursor = result.structuredContent && result.structuredContent.nextCursor;
    while (tool && cursor && host.hostCapabilities && host.hostCapabilities.serverTools) {
      const next = await request('tools/call', { name: tool, arguments: { cursor } }).catch(() => undefined);
      if (!next || next.isError) return;
      onPage(pageOf(next));
      cursor = next.structuredContent && next.structuredContent.nextCursor;
    }
  };
  return { request, notify, on, start, openLink, pageOf, nextPages, el };
})();
`;

/** Shared look: the host's colours where it gives them (ui host styles), plain ones otherwise. */
export const BASE_CSS = `
:root { color-scheme: light dark; font: 14px/1.5 system-ui, sans-serif; }
body { margin: 0; padding: 12px; color: var(--color-text-primary, CanvasText); background: var(--color-background-primary, Canvas); }
a { color: var(--color-text-info, LinkText); }
button { font: inherit; cursor: pointer; }
h1 { font-size: 1.2em; margin: 0 0 4px; }
.muted { opacity: 0.7; font-size: 0.9em; }
`;

/** A view's markup, style and script (which defines the function that shows a tool result). */
export interface AppParts {
  css: string;
  body: string;
  script: string;
}

/**
 * An app's HTML document: the parts' style and script inline, nothing loaded from elsewhere.
 * `show` is the script expression that picks the view for a tool result and shows it.
 */
export function appDocument(name: string, title: string, parts: AppParts[], show: string): string {
  const css = BASE_CSS + parts.map((part) => part.css).join('');
  const script = `${BRIDGE_JS}\nconst { el } = bridge;\n${parts.map((part) => part.script).join('\n')}
bridge.on('ui/notifications/tool-result', (result) => { ${show} });
bridge.on('ui/resource-teardown', () => ({}));
bridge.start(${JSON.stringify(name)});`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title><style>${css}</style></head><body>${parts.map((part) => part.body).join('')}<script>${script}</script></body></html>`;
}
