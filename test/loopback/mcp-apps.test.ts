/**
 * The MCP Apps in Chromium, hosted as a chat client hosts them (test/support/apps-host.ts: the
 * ext-apps package's AppBridge, the app in a sandboxed iframe under the CSP its resource declares),
 * fed real tool results from a real server on loopback: the transcript player over the YouTube
 * replay (ud9d5cMDP_0, seven chapters in its recorded description; captions of this test's own, a
 * line every 30 s), the page reader over a loopback page rendered with a screenshot. YouTube's
 * embed is answered by a stand-in that speaks the IFrame API's postMessage commands, so nothing
 * leaves loopback; every request of the page is recorded and checked against the app's CSP.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Frame } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp } from '../support/mcp.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { startAppsHost, type AppCsp, type AppsHost } from '../support/apps-host.js';
import { CHROMIUM } from '../support/console-browser.js';

const VIDEO = 'https://www.youtube.com/watch?v=ud9d5cMDP_0';
const events = Array.from({ length: 34 }, (_, i) => ({ tStartMs: i * 30_000, dDurationMs: 30_000, segs: [{ utf8: `line ${i} of the harbour log, read aloud` }] }));
const ARTICLE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The harbour log</title></head><body><main><article>
<h1>The harbour log</h1><p>The clerk copied out every ship that called in the winter of 1911, three at a time, with its cargo.</p>
<h2>Ships of January</h2><p>The Cromarty, the Fair Isle and the Wick came in on the same tide, carrying <a href="https://example.org/herring">herring</a>.</p>
<h2>Ships of February</h2><p>Only the Stroma called, late, with timber; a <a href="javascript:alert(1)">bad link</a> and <b>&lt;script&gt;</b> stay text.</p>
</article></main></body></html>`;

/** The stand-in for YouTube's embed: answers the IFrame API's "listening" and "seekTo" as the player does. */
const FAKE_EMBED = `<!doctype html><html><body><p id="at">0</p><script>
window.seeks = [];
const tell = (info) => parent.postMessage(JSON.stringify({ event: 'infoDelivery', info }), '*');
addEventListener('message', (event) => {
  const data = JSON.parse(event.data);
  if (data.event === 'listening') tell({ currentTime: 0 });
  if (data.event === 'command' && data.func === 'seekTo') { window.seeks.push(data.args[0]); document.getElementById('at').textContent = data.args[0]; tell({ currentTime: data.args[0] }); }
});
</script></body></html>`;

let server: TestServer;
let replay: YoutubeReplay;
let site: http.Server;
let host: AppsHost;
let client: Client;
let browser: Browser;

beforeAll(async () => {
  replay = await startYoutubeReplay();
  replay.captionBodies.set('ud9d5cMDP_0', JSON.stringify({ events }));
  site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startTestServer({
    env: { GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin},harbour.test=${siteOrigin}`, GLEANER_RENDER_TIMEOUT_MS: '120000' },
  });
  client = await connectMcp(server.baseUrl, await server.createKey('Pro', { credits: 100 }));
  host = await startAppsHost();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'], timeout: 120_000 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.close();
  await replay?.close();
  await host?.close();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
});

/** The app a tool names, read as a host reads it: the tool's _meta.ui.resourceUri, then resources/read. */
async function appFor(tool: string) {
  const listed = await client.listTools();
  const uri = (listed.tools.find((t) => t.name === tool)!._meta as { ui: { resourceUri: string } }).ui.resourceUri;
  expect(uri).toMatch(/^ui:\/\//);
  const read = await client.readResource({ uri });
  const content = read.contents[0] as unknown as { mimeType: string; text: string; _meta: { ui: { csp: AppCsp } } };
  expect(content.mimeType).toBe('text/html;profile=mcp-app');
  return { uri, html: content.text, csp: content._meta.ui.csp };
}

/** Hosts the app with a tool's real result; returns the app's frame, every request the page made and the calls the app made through the host. */
async function host_(tool: string, args: Record<string, unknown>): Promise<{ context: BrowserContext; app: Frame; requests: string[]; csp: AppCsp; result: any; calls: unknown[] }> {
  const { uri, html, csp } = await appFor(tool);
  const result = await client.callTool({ name: tool, arguments: args });
  expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
  const name = uri.replace(/\W+/g, '-');
  host.serve(name, html, csp);
  const context = await browser.newContext();
  await context.route('https://www.youtube.com/embed/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: FAKE_EMBED }));
  // Anything else off loopback is refused (and recorded, so the test sees it).
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => (route.request().url().startsWith('https://www.youtube.com/embed/') ? route.fallback() : route.abort()));
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  const page = await context.newPage();
  const calls: unknown[] = [];
  await page.exposeFunction('callTool', (params: { name: string; arguments: Record<string, unknown> }) => {
    calls.push(params);
    return client.callTool(params);
  });
  await page.goto(host.origin);
  await page.evaluate(([src, name_, input, output]) => (globalThis as any).startApp(src, name_, input, output), [host.appUrl(name), tool, args, result] as const);
  const app = page.frames().find((frame) => frame.url() === host.appUrl(name))!;
  return { context, app, requests, csp, result, calls };
}

/** Every request went to the host, the app's own document, or an origin its CSP names. */
function expectOnlyNamedOrigins(requests: string[], csp: AppCsp) {
  const named = new Set([host.origin, new URL(host.appUrl('x')).origin, ...(csp.frameDomains ?? []), ...(csp.resourceDomains ?? []), ...(csp.connectDomains ?? [])]);
  const elsewhere = requests.filter((url) => !url.startsWith('data:') && !named.has(new URL(url).origin));
  expect(elsewhere).toEqual([]);
}

describe.skipIf(!fs.existsSync(CHROMIUM))('MCP Apps in Chromium', () => {
  it('the transcript player shows the chapters and lines; a click on chapter 3 seeks the embed there and tells the host', { timeout: 180_000 }, async () => {
    // Pages of 1,000 characters: the player fetches the later ones through the host, by cursor alone.
    const { context, app, requests, csp, result, calls } = await host_('youtube_transcript', { url: VIDEO, maxChars: 1_000 });
    try {
      const chapters = app.locator('#chapters button');
      await expect.poll(() => chapters.count()).toBe(7);
      const lines = app.locator('#lines li');
      await expect.poll(() => lines.count()).toBe(34);
      expect(result.content[1].text).toMatch(/^\[Page 1 of [2-9]/);
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) expect(Object.keys((call as { arguments: object }).arguments)).toEqual(['cursor']);
      expect(await lines.nth(1).innerText()).toMatch(/^00:30\s*line 1 of the harbour log, read aloud$/);
      const third = (result._meta['gleaner/page'].chapters as Array<{ title: string; start: number }>)[2];
      expect(await chapters.nth(2).innerText()).toContain(third.title);

      await chapters.nth(2).click();
      const embed = app.childFrames().find((frame) => frame.url().startsWith('https://www.youtube.com/embed/ud9d5cMDP_0'))!;
      expect(embed, 'the YouTube embed').toBeDefined();
      await expect.poll(() => embed.evaluate(() => (globalThis as any).seeks)).toEqual([third.start]);
      // The line followed is the one at the chapter's start (a line every 30 s).
      const current = app.locator('#lines li.current');
      await expect.poll(() => current.innerText()).toContain(`line ${Math.floor(third.start / 30)} of`);
      const page = app.page();
      await expect.poll(() => page.evaluate(() => (globalThis as any).contexts.length)).toBe(1);
      const told = await page.evaluate(() => (globalThis as any).contexts[0]);
      expect(told.content[0].text).toContain(`chapter 3: ${third.title}`);

      // Search keeps the matching lines only.
      await app.locator('#search').fill('line 3');
      await expect.poll(() => app.locator('#lines li:not([hidden])').count()).toBe(5);
      expectOnlyNamedOrigins(requests, csp);
      expect(csp.frameDomains).toEqual(['https://www.youtube.com']);
    } finally {
      await context.close();
    }
  });

  it("the page reader shows the page's headings, its links (a javascript: one as text) and its screenshot", { timeout: 240_000 }, async () => {
    const { context, app, requests, csp } = await host_('web_scrape', { url: 'http://harbour.test/log', screenshot: 'viewport' });
    try {
      await expect.poll(() => app.locator('#page h2, #page h3').allInnerTexts()).toEqual(expect.arrayContaining(['Ships of January', 'Ships of February']));
      const shot = app.locator('#screenshot img');
      await expect.poll(() => shot.evaluate((img: any) => img.naturalWidth)).toBe(1280);
      expect(await app.locator('#page a[href^="javascript"]').count()).toBe(0);
      expect(await app.locator('#page script').count()).toBe(0);
      expect(await app.locator('#links a').allTextContents()).toContain('https://example.org/herring');
      await app.locator('#page a[href="https://example.org/herring"]').click();
      await expect.poll(() => app.page().evaluate(() => (globalThis as any).links)).toEqual(['https://example.org/herring']);
      expectOnlyNamedOrigins(requests, csp);
      expect(csp).toMatchObject({ connectDomains: [], resourceDomains: [], frameDomains: [] });
    } finally {
      await context.close();
    }
  });
});
