/**
 * The web console, walked in Debian's Chromium as a person would: sign in with a key, read the
 * credits, see a scrape made elsewhere (REST, same key) in the usage, cancel a crawl, sign out; an
 * owner creates a key. Then what it refuses: cross-site form posts, another key's job, a wrong key.
 * Screenshots of every page go to test/artifacts/console.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.js';
import { startGatedSite, type GatedSite } from '../support/gated-site.js';
import { launchBrowser, screenshot, signInToConsole } from '../support/console-browser.js';

const TIMEOUT = 120_000;
let server: TestServer;
let browser: Browser;
let article: { origin: string; close(): Promise<void> };
const sites: GatedSite[] = [];

/** One page to scrape, on loopback. */
async function startArticle(): Promise<typeof article> {
  const site = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end('<!doctype html><html><head><title>Loopback article</title></head><body><article><h1>Loopback article</h1><p>A page served on loopback for the console test, long enough to be the main content.</p></article></body></html>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => site.close(() => resolve())),
  };
}

async function gatedSite(): Promise<GatedSite> {
  const site = await startGatedSite(10);
  sites.push(site);
  return site;
}

beforeAll(async () => {
  server = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true' } });
  article = await startArticle();
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  for (const site of sites) await site.close();
  await article?.close();
  await server?.close();
}, TIMEOUT);

const signIn = (context: BrowserContext, key: string): Promise<Page> => signInToConsole(context, server.baseUrl, key);

const text = async (page: Page, selector: string) => (await page.textContent(selector))?.trim() ?? '';

/** Usage reaches the store within a fraction of a second (accounts/usage.ts): flushed here instead of waited for. */
const usageWritten = () => server.app.services.accounts.usage.flush();

describe('the console in a browser', () => {
  it(
    'a key holder signs in, reads credits, sees a REST scrape in usage, cancels a crawl and signs out',
    async () => {
      const key = await server.createKey('Pro', { credits: 100 });
      const context = await browser.newContext();
      const page = await context.newPage();

      // Signed out, the console sends the person to the sign-in form.
      const first = await page.goto(`${server.baseUrl}/console`);
      expect(page.url()).toBe(`${server.baseUrl}/console/sign-in`);
      expect(first?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      await screenshot(page, '01-sign-in');

      // A wrong key: a clear message, no session.
      await page.fill('input[name=key]', 'gl_this-key-does-not-exist');
      const refused = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/console/sign-in') && r.request().method() === 'POST'), page.click('button[type=submit]')]);
      expect(refused[0].status()).toBe(401);
      expect(await text(page, '#sign-in-error')).toContain('That key is not valid');
      expect((await context.cookies()).some((c) => c.name === 'gleaner_console')).toBe(false);
      await screenshot(page, '02-sign-in-wrong-key');

      await page.fill('input[name=key]', key);
      await page.click('button[type=submit]');
      await page.waitForURL(`${server.baseUrl}/console`);
      const session = (await context.cookies()).find((c) => c.name === 'gleaner_console');
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
      expect(await text(page, '#plan')).toBe('Pro');
      expect(await text(page, '#credits-left')).toBe('100');
      expect(await text(page, '#rate-limit')).toBe('100 a minute');
      await screenshot(page, '03-overview');

      // A scrape elsewhere, with the same key, over REST.
      const scraped = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(`${article.origin}/story`)}`, { apiKey: key });
      expect(scraped.status).toBe(200);
      const charged = Number(scraped.headers.get('X-Credits-Used'));
      expect(charged).toBeGreaterThan(0);
      await usageWritten();
      await page.click('nav >> text=Usage');
      await page.waitForURL(`${server.baseUrl}/console/usage`);
      const recent = await text(page, '#recent-calls');
      expect(recent).toContain('web_scrape');
      expect(await text(page, '#usage-by-operation')).toMatch(/web_scrape\s*1\s*0\s*\d+/);
      expect(await page.locator('svg.chart rect').count()).toBeGreaterThan(0);
      await screenshot(page, '04-usage-calls');
      await page.click('text=Credits');
      expect(await page.locator('svg.chart rect.s0').count()).toBeGreaterThan(0);
      await screenshot(page, '05-usage-credits');
      await page.click('nav >> text=Overview');
      expect(await text(page, '#credits-left')).toBe(String(100 - charged));

      // A crawl held mid-way, seen in the jobs list, cancelled from its page.
      const site = await gatedSite();
      const crawl = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${site.origin}/`, maxPages: 10 } });
      expect(crawl.status).toBe(202);
      const { jobId } = crawl.body;
      await site.requestedAtLeast(1);
      await page.click('nav >> text=Jobs');
      expect(await text(page, '#jobs')).toContain(jobId);
      expect(await text(page, '#jobs')).toMatch(/web_crawl\s*(processing|queued)/);
      await screenshot(page, '06-jobs');
      await page.click(`a:text("${jobId}")`);
      await page.waitForURL(`${server.baseUrl}/console/jobs/${jobId}`);
      await screenshot(page, '07-job-running');
      // The pages let through after the cancel is asked let the crawl reach the point where it stops.
      const cancelled = page.waitForURL(`${server.baseUrl}/console/jobs/${jobId}?done=cancel`);
      await page.click('button:text("Cancel")');
      site.releaseAll();
      await cancelled;
      const me = (await server.request('GET', '/v1/me', { apiKey: key })).body;
      expect((await server.app.services.jobs.waitFor(jobId, me.id, 60_000)).status).toBe('cancelled');
      await page.reload();
      expect(await text(page, '#job-status')).toBe('cancelled');
      expect(await page.locator('button:text("Cancel")').count()).toBe(0);
      expect(await text(page, '#job-result')).toMatch(new RegExp(`^Job ${jobId} \\(web_crawl\\) cancelled\nCrawl of ${site.origin}/: \\d+ pages`));
      await screenshot(page, '08-job-cancelled');
      // A finished crawl's result reads as text: each page's title, address and words, not escaped JSON.
      const done = (await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${article.origin}/`, maxPages: 1 } })).body.jobId as string;
      expect((await server.app.services.jobs.waitFor(done, me.id, 60_000)).status).toBe('completed');
      await page.goto(`${server.baseUrl}/console/jobs/${done}`);
      const result = await text(page, '#job-result');
      expect(result).toContain(`Crawl of ${article.origin}/: 1 pages, 0 failed\n\n## Loopback article\n${article.origin}/\n\n`);
      expect(result).toContain('A page served on loopback for the console test, long enough to be the main content.');
      expect(result).not.toContain('"pages":');
      // The API sees what the console did: one record.
      expect((await server.request('GET', `/v1/jobs/${jobId}`, { apiKey: key })).body.status).toBe('cancelled');
      await usageWritten();
      await page.click('nav >> text=Usage');
      expect(await text(page, '#recent-calls')).toContain('job_cancel');

      // Sign out: the session ends in the store too, so the old cookie is worth nothing.
      await page.click('button:text("Sign out")');
      await page.waitForURL(`${server.baseUrl}/console/sign-in?signed-out=1`);
      await screenshot(page, '09-signed-out');
      await page.goto(`${server.baseUrl}/console`);
      expect(page.url()).toBe(`${server.baseUrl}/console/sign-in`);
      const replay = await fetch(`${server.baseUrl}/console`, { headers: { cookie: `gleaner_console=${session!.value}` }, redirect: 'manual' });
      expect(replay.status).toBe(303);
      expect(replay.headers.get('location')).toBe('/console/sign-in');
      await context.close();
    },
    TIMEOUT,
  );

  it(
    'an owner creates a key, shown once, which then works on the API; a member has no keys page',
    async () => {
      const { apiKey: ownerKey } = await server.app.services.accounts.create({ plan: 'Enterprise', name: 'owner', role: 'owner' });
      const context = await browser.newContext();
      const page = await signIn(context, ownerKey);
      expect(await text(page, '#credits-left')).toBe('unlimited');
      await page.click('nav >> text=Keys');
      await page.waitForURL(`${server.baseUrl}/console/keys`);
      await screenshot(page, '10-keys');
      await page.fill('input[name=name]', 'research team');
      await page.selectOption('select[name=plan] >> nth=0', 'Basic');
      await page.click('button:text("Create key")');
      const newKey = await text(page, '#new-key-value');
      expect(newKey).toMatch(/^gl_[A-Za-z0-9_-]{32}$/);
      await screenshot(page, '11-key-created');
      const me = await server.request('GET', '/v1/me', { apiKey: newKey });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ plan: 'Basic', credits: 300 });
      // Shown once: the list never shows it again.
      await page.goto(`${server.baseUrl}/console/keys`);
      expect(await page.content()).not.toContain(newKey);
      const row = page.locator(`tr[data-key-id="${me.body.id}"]`);
      expect(await row.textContent()).toContain('research team');

      // Set its plan, then revoke it: the API follows at once.
      await row.locator('select[name=plan]').selectOption('Pro');
      await row.locator('button:text("Set plan")').click();
      await page.waitForURL(/done=plan/);
      expect((await server.request('GET', '/v1/me', { apiKey: newKey })).body.plan).toBe('Pro');
      await page.locator(`tr[data-key-id="${me.body.id}"] button:text("Revoke")`).click();
      await page.waitForURL(/done=revoked/);
      expect((await server.request('GET', '/v1/me', { apiKey: newKey })).status).toBe(401);
      await screenshot(page, '12-key-revoked');
      await context.close();

      // A member key: no Keys link, and the page does not exist for it.
      const member = await server.createKey('Free');
      const memberContext = await browser.newContext();
      const memberPage = await signIn(memberContext, member);
      expect(await memberPage.locator('nav >> text=Keys').count()).toBe(0);
      const hidden = await memberPage.goto(`${server.baseUrl}/console/keys`);
      expect(hidden?.status()).toBe(404);
      await memberContext.close();
    },
    TIMEOUT,
  );

  it(
    "refuses a cross-site form post from a page of another origin, and shows nothing of another key's job",
    async () => {
      const key = await server.createKey('Pro', { credits: 100 });
      const stranger = await server.createKey('Pro', { credits: 100 });
      const site = await gatedSite();
      const mine = (await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${site.origin}/`, maxPages: 10 } })).body.jobId as string;
      const theirs = (await server.request('POST', '/v1/web/crawl', { apiKey: stranger, body: { url: `${site.origin}/`, maxPages: 10 } })).body.jobId as string;
      const context = await browser.newContext();
      const page = await signIn(context, key);

      // Another key's job id, typed into the console: not found, nothing of it shown.
      const foreign = await page.goto(`${server.baseUrl}/console/jobs/${encodeURIComponent(theirs)}`);
      expect(foreign?.status()).toBe(404);
      expect(await page.content()).not.toContain('web_crawl');
      await screenshot(page, '13-foreign-job');
      expect(await page.locator('#job').count()).toBe(0);
      await page.goto(`${server.baseUrl}/console/jobs`);
      expect(await text(page, '#jobs')).toContain(mine);
      expect(await text(page, '#jobs')).not.toContain(theirs);
      // Cancelling it with this session's valid token: 404 too, and the job runs on.
      await page.goto(`${server.baseUrl}/console/jobs/${encodeURIComponent(mine)}`);
      const csrf = await page.getAttribute('input[name=csrf] >> nth=0', 'value');
      const posted = await page.request.post(`${server.baseUrl}/console/jobs/${encodeURIComponent(theirs)}/cancel`, {
        form: { csrf: csrf! },
        headers: { origin: server.baseUrl },
        maxRedirects: 0,
      });
      expect(posted.status()).toBe(404);
      const strangerMe = (await server.request('GET', '/v1/me', { apiKey: stranger })).body;
      expect((await server.app.services.jobs.get(theirs, strangerMe.id)).cancelRequested).toBeUndefined();

      // A page on another origin whose form posts to the console's cancel (a person clicks it).
      const evil = http.createServer((_req, res) => {
        res.setHeader('content-type', 'text/html');
        res.end(
          `<!doctype html><form method="post" action="${server.baseUrl}/console/jobs/${encodeURIComponent(mine)}/cancel"><input type="hidden" name="csrf" value="${csrf}"><button id="go">Win a prize</button></form>`,
        );
      });
      await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
      try {
        const evilPage = await context.newPage();
        await evilPage.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
        const [reply] = await Promise.all([evilPage.waitForResponse((r) => r.url().includes('/cancel')), evilPage.click('#go')]);
        expect(reply.status()).toBe(403);
        expect(await evilPage.textContent('main')).toContain('cross-site request refused');
        await screenshot(evilPage, '14-cross-site-post-refused');
      } finally {
        evil.closeAllConnections();
        await new Promise<void>((resolve) => evil.close(() => resolve()));
      }
      const meId = (await server.request('GET', '/v1/me', { apiKey: key })).body.id;
      const job = await server.app.services.jobs.get(mine, meId);
      expect(job.cancelRequested).toBeUndefined();
      expect(job.status).not.toBe('cancelled');
      await context.close();
    },
    TIMEOUT,
  );
});
