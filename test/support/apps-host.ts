/**
 * A host for MCP Apps in a real Chromium, as a chat client that renders apps does it: the ext-apps
 * package's own host side (AppBridge over PostMessageTransport, bundled here for the browser) in a
 * page on one loopback origin, the app's HTML in a sandboxed iframe on another, served with the
 * CSP its resource's `_meta.ui.csp` asks for. The bridge records what the app sends back.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';

export interface AppCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
}

/** The CSP a host sets on an app's document from its declared domains ('none' where none). */
export function cspHeader(csp: AppCsp): string {
  const list = (domains: string[] | undefined, base = '') => `${base} ${(domains ?? []).join(' ')}`.trim() || "'none'";
  return [
    "default-src 'none'",
    `script-src ${list(csp.resourceDomains, "'unsafe-inline'")}`,
    `style-src ${list(csp.resourceDomains, "'unsafe-inline'")}`,
    `img-src ${list(csp.resourceDomains, 'data:')}`,
    `font-src ${list(csp.resourceDomains)}`,
    `media-src ${list(csp.resourceDomains, 'data:')}`,
    `connect-src ${list(csp.connectDomains)}`,
    `frame-src ${list(csp.frameDomains)}`,
    "base-uri 'none'",
  ].join('; ');
}

const HOST_PAGE = `<!doctype html><html><head><meta charset="utf-8"><script src="/bridge.js"></script></head><body>
<script>
window.contexts = []; window.links = []; window.sizes = [];
window.startApp = async (src, tool, args, result) => {
  const { AppBridge, PostMessageTransport } = window.ExtApps;
  const iframe = document.createElement('iframe');
  // As the ext-apps sandbox does: scripts, and the app's own origin (a separate one) kept.
  iframe.sandbox = 'allow-scripts allow-same-origin';
  iframe.style.width = '900px'; iframe.style.height = '1200px';
  document.body.append(iframe);
  const bridge = new AppBridge(null, { name: 'gleaner-test-host', version: '1.0.0' }, { openLinks: {}, updateModelContext: { text: {} }, serverTools: {} }, { hostContext: { toolInfo: { tool: { name: tool, inputSchema: { type: 'object' } } } } });
  // Calls the app makes go to the server through the test's MCP client (exposed as window.callTool).
  bridge.oncalltool = (params) => window.callTool(params);
  bridge.onupdatemodelcontext = async (params) => { window.contexts.push(params); return {}; };
  bridge.onopenlink = async (params) => { window.links.push(params.url); return {}; };
  bridge.onsizechange = (params) => window.sizes.push(params);
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.src = src;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
};
</script></body></html>`;

export interface AppsHost {
  /** The host page's origin. */
  origin: string;
  /** Where the app is served, with its CSP. */
  appUrl(name: string): string;
  serve(name: string, html: string, csp: AppCsp): void;
  close(): Promise<void>;
}

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; origin: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function startAppsHost(): Promise<AppsHost> {
  const bundled = await build({
    stdin: { contents: "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';", resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'iife',
    globalName: 'ExtApps',
    platform: 'browser',
    write: false,
  });
  const bridgeJs = bundled.outputFiles[0].text;
  const host = await listen((req, res) => {
    if (req.url === '/bridge.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(bridgeJs);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HOST_PAGE);
  });
  const apps = new Map<string, { html: string; csp: AppCsp }>();
  const sandbox = await listen((req, res) => {
    const app = apps.get((req.url ?? '').slice(1));
    if (!app) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': cspHeader(app.csp) }).end(app.html);
  });
  return {
    origin: host.origin,
    appUrl: (name) => `${sandbox.origin}/${name}`,
    serve: (name, html, csp) => apps.set(name, { html, csp }),
    async close() {
      for (const server of [host.server, sandbox.server]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
