/**
 * The console's OAuth-clients section, walked in Debian's Chromium: a client registers (RFC 7591),
 * a person approves it on the real sign-in page with a key, its access token lists tools on /mcp;
 * the same person signs in to the console with that key, sees the client by name, presses Revoke,
 * and the token gets 401 from then on. Another key sees nothing of that client and cannot revoke
 * its approval by id. Screenshots go to test/artifacts/console beside the other console pages.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.js';
import { ARTIFACTS, launchBrowser, screenshot, signInToConsole } from '../support/console-browser.js';
import { signInWithBrowser, startCallbackServer } from '../support/oauth.js';

const TIMEOUT = 120_000;
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let server: TestServer;
let browser: Browser;
let as: oauth.AuthorizationServer;
let callback: Awaited<ReturnType<typeof startCallbackServer>>;

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  callback = await startCallbackServer();
  const issuer = new URL(server.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
}, TIMEOUT);

/**
 * A public client registers under `name`, and a person approves it with `apiKey` on the sign-in page
 * in the browser; the code that comes back to the client's loopback redirect is exchanged for tokens.
 */
async function approveClient(apiKey: string, name: string, signInScreenshot?: string) {
  const registered = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [callback.url], client_name: name, token_endpoint_auth_method: 'none' }, insecure);
  const client = (await oauth.processDynamicClientRegistrationResponse(registered)) as oauth.Client;
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: callback.url,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 'console-oauth',
    resource: `${server.baseUrl}/mcp`,
    scope: 'mcp',
  }).toString();
  const arrived = callback.next();
  await signInWithBrowser(browser, url.toString(), apiKey, signInScreenshot ? { screenshot: path.join(ARTIFACTS, `${signInScreenshot}.png`) } : {});
  const params = oauth.validateAuthResponse(as, client, await arrived, 'console-oauth');
  const exchanged = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, callback.url, verifier, insecure);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, exchanged);
  return { client, tokens };
}

/** tools/list on /mcp with an OAuth access token: the status, the number of tools, the challenge. */
async function listTools(accessToken: string): Promise<{ status: number; tools: number; challenge: string | null }> {
  const response = await fetch(`${server.baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${accessToken}`, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  const text = await response.text();
  let tools = 0;
  if (response.status === 200) {
    const message = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data: '))!.slice(6));
    tools = message.result.tools.length;
  }
  return { status: response.status, tools, challenge: response.headers.get('www-authenticate') };
}

const consoleSignIn = (context: BrowserContext, key: string): Promise<Page> => signInToConsole(context, server.baseUrl, key);

async function openOAuthClients(page: Page): Promise<void> {
  await page.click('nav >> text=OAuth clients');
  await page.waitForURL(`${server.baseUrl}/console/oauth-clients`);
}

const accountOf = async (key: string) => server.app.services.accounts.authenticate(key);

describe('the console’s OAuth clients', () => {
  it(
    'a client approved on the sign-in page is listed by name; Revoke ends its token on /mcp',
    async () => {
      const key = await server.createKey('Pro');
      // Anyone may register a client and choose its name: the console shows it as text, never as markup.
      const name = 'Loopback Assistant <b>v2</b>';
      const { client, tokens } = await approveClient(key, name, '20-oauth-sign-in');
      const before = await listTools(tokens.access_token);
      expect(before.status).toBe(200);
      expect(before.tools).toBeGreaterThan(0);
      // The client renews its tokens once (rotation): the console shows when.
      const renewed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure));
      expect((await listTools(renewed.access_token)).status).toBe(200);

      const context = await browser.newContext();
      const page = await consoleSignIn(context, key);
      await openOAuthClients(page);
      const row = page.locator('#oauth-clients tr', { hasText: name });
      expect(await row.count()).toBe(1);
      expect(await row.locator('b').count()).toBe(0);
      expect(await row.textContent()).toContain(client.client_id);
      expect(await page.locator('#oauth-clients th').nth(2).textContent()).toBe('Last renewed');
      expect(await row.locator('td').nth(1).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      expect(await row.locator('td').nth(2).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      await screenshot(page, '21-oauth-clients');

      const [revoked] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/revoke') && r.request().method() === 'POST'),
        row.locator('button:text("Revoke")').click(),
      ]);
      expect(revoked.status()).toBe(303);
      await page.waitForURL(`${server.baseUrl}/console/oauth-clients?done=revoked`);
      expect(await page.textContent('main .success')).toContain('Revoked');
      expect(await page.locator('#oauth-clients').count()).toBe(0);
      expect(await page.textContent('main')).toContain('No OAuth client');
      await screenshot(page, '22-oauth-client-revoked');

      // Every token of that approval: both access tokens get 401, the live refresh token renews nothing.
      for (const accessToken of [tokens.access_token, renewed.access_token]) {
        const after = await listTools(accessToken);
        expect(after.status).toBe(401);
        expect(after.challenge).toContain('error="invalid_token"');
      }
      const refused = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), renewed.refresh_token!, insecure);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
      expect(await server.app.oauth.grants.list((await accountOf(key)).id)).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    'another key sees nothing of that client, and revoking its approval by id is 404 with the approval untouched',
    async () => {
      const owner = await server.createKey('Pro');
      const { client, tokens } = await approveClient(owner, 'Private Assistant');
      const [grant] = await server.app.oauth.grants.list((await accountOf(owner)).id);
      expect(grant).toMatchObject({ clientId: client.client_id, clientName: 'Private Assistant' });

      const stranger = await server.createKey('Pro');
      const context = await browser.newContext();
      const page = await consoleSignIn(context, stranger);
      await openOAuthClients(page);
      const content = await page.content();
      expect(content).not.toContain('Private Assistant');
      expect(content).not.toContain(client.client_id);
      expect(content).not.toContain(grant.grantId);
      expect(await page.textContent('main')).toContain('No OAuth client');
      await screenshot(page, '23-oauth-clients-other-key');

      // The owner's approval id, posted with this session's valid form token from this origin: not found.
      const csrf = await page.getAttribute('input[name=csrf] >> nth=0', 'value');
      const posted = await page.request.post(`${server.baseUrl}/console/oauth-clients/${encodeURIComponent(grant.grantId)}/revoke`, {
        form: { csrf: csrf! },
        headers: { origin: server.baseUrl },
        maxRedirects: 0,
      });
      expect(posted.status()).toBe(404);
      expect(await posted.text()).not.toContain('Private Assistant');

      // Untouched: still listed for its own key, its token still lists tools.
      expect(await server.app.oauth.grants.list((await accountOf(owner)).id)).toEqual([expect.objectContaining({ grantId: grant.grantId, clientName: 'Private Assistant' })]);
      expect((await server.app.oauth.tokens.grant(grant.grantId))?.revokedAt).toBeUndefined();
      expect((await listTools(tokens.access_token)).status).toBe(200);
      await context.close();
    },
    TIMEOUT,
  );
});
