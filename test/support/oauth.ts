/**
 * Signing in on Gleaner's OAuth sign-in page, as a person does: with a real headless Chromium
 * (Debian's, driven by playwright-core), or, for protocol tests, with plain HTTP requests that read the
 * form as a browser would and post it with the page's cookie.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.GLEANER_BROWSER_PATH ?? '/usr/bin/chromium';
export const hasChromium = (): boolean => fs.existsSync(CHROMIUM);

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** Opens the authorization URL in a fresh browser context, pastes the key, presses Approve (or Deny); resolves with the URL the browser was sent back to. */
export async function signInWithBrowser(browser: Browser, authorizationUrl: string, apiKey: string, options: { decision?: 'approve' | 'deny'; screenshot?: string } = {}): Promise<URL> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(authorizationUrl);
    await page.getByLabel('Your Gleaner API key').fill(apiKey);
    if (options.screenshot) await page.screenshot({ path: options.screenshot, fullPage: true });
    await Promise.all([
      page.waitForURL((url) => url.origin !== new URL(authorizationUrl).origin, { waitUntil: 'commit' }),
      page.getByRole('button', { name: options.decision === 'deny' ? 'Deny' : 'Approve' }).click(),
    ]);
    return new URL(page.url());
  } finally {
    await context.close();
  }
}

/** The sign-in page fetched as a browser would: its form fields and the CSRF cookie it set. */
export async function openSignInPage(authorizationUrl: string): Promise<{ status: number; html: string; requestId?: string; csrf?: string; cookie?: string; headers: Headers }> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const html = await response.text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  return { status: response.status, html, requestId: field('request_id'), csrf: field('csrf'), cookie, headers: response.headers };
}

/** Posts the sign-in form; `override` forges fields or headers. Returns the status and the Location (the redirect back) or the page. */
export async function postSignIn(
  baseUrl: string,
  page: { requestId?: string; csrf?: string; cookie?: string },
  apiKey: string,
  override: { fields?: Record<string, string>; headers?: Record<string, string>; cookie?: string | null } = {},
): Promise<{ status: number; location: string | null; html: string }> {
  const fields = { request_id: page.requestId ?? '', csrf: page.csrf ?? '', api_key: apiKey, decision: 'approve', ...override.fields };
  const cookie = override.cookie === null ? undefined : (override.cookie ?? page.cookie);
  const response = await fetch(`${baseUrl}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(baseUrl).origin, ...(cookie ? { cookie } : {}), ...override.headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/** Signs in over plain HTTP; resolves with the redirect back (code, state, iss). */
export async function signInWithForm(baseUrl: string, authorizationUrl: string, apiKey: string): Promise<URL> {
  const page = await openSignInPage(authorizationUrl);
  if (page.status !== 200) throw new Error(`sign-in page answered ${page.status}: ${page.html.slice(0, 300)}`);
  const posted = await postSignIn(baseUrl, page, apiKey);
  if (posted.status !== 303 || !posted.location) throw new Error(`sign-in answered ${posted.status}: ${posted.html.slice(0, 300)}`);
  return new URL(posted.location);
}

/** An application's loopback redirect listener at /callback: resolves each callback's query, answers a small page. */
export async function startCallbackServer(): Promise<{ url: string; next(): Promise<URL>; close(): Promise<void> }> {
  const waiting: Array<(url: URL) => void> = [];
  const arrived: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    // The browser also asks this origin for /favicon.ico after a redirect: that is not a callback.
    if (url.pathname !== '/callback') {
      res.statusCode = 404;
      return void res.end();
    }
    const wake = waiting.shift();
    if (wake) wake(url);
    else arrived.push(url);
    res.setHeader('content-type', 'text/html');
    res.end('<p>Signed in; you may close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => (arrived.length ? Promise.resolve(arrived.shift()!) : new Promise<URL>((resolve) => waiting.push(resolve))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
