/**
 * Gleaner as the OAuth 2.1 authorization server of its own /mcp (issue 29.1), driven by a real OAuth
 * client library (oauth4webapi) against a real server on loopback: discovery, dynamic registration,
 * client metadata documents, the sign-in form, PKCE, rotating refresh tokens, revocation, and every
 * refusal the issue names. The browser-driven sign-ins of real MCP clients are in
 * test/processes/oauth-clients.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { startTestServer, type TestServer } from '../support/server.js';
import { openSignInPage, postSignIn, signInWithForm } from '../support/oauth.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REDIRECT = 'http://127.0.0.1:53682/callback';

let now = Date.now();
let server: TestServer;
let as: oauth.AuthorizationServer;
let metadataSite: http.Server;
let metadataDocument: Record<string, unknown> = {};

beforeAll(async () => {
  // A client metadata document is served from "https://client.test/..." (loopback through the overrides).
  metadataSite = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(metadataDocument));
  });
  await new Promise<void>((resolve) => metadataSite.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(metadataSite.address() as AddressInfo).port}`;
  server = await startTestServer({ clock: () => new Date(now), env: { GLEANER_UPSTREAM_OVERRIDES: `client.test=${origin}` } });
  const issuer = new URL(server.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
});
afterAll(async () => {
  await server?.close();
  metadataSite?.closeAllConnections();
  await new Promise((resolve) => metadataSite?.close(resolve));
});

async function registerPublicClient(redirectUris = [REDIRECT], name = 'Test Assistant'): Promise<oauth.Client> {
  const response = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: redirectUris, client_name: name, token_endpoint_auth_method: 'none' }, insecure);
  return (await oauth.processDynamicClientRegistrationResponse(response)) as oauth.Client;
}

function authorizationUrl(client: oauth.Client, challenge: string, extra: Record<string, string> = {}): string {
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    resource: `${server.baseUrl}/mcp`,
    scope: 'mcp',
    ...extra,
  }).toString();
  return url.toString();
}

/** Registers, signs in with `apiKey` and returns the client, the verifier and the redirect back. */
async function signIn(apiKey: string, client?: oauth.Client) {
  client ??= await registerPublicClient();
  const verifier = oauth.generateRandomCodeVerifier();
  const back = await signInWithForm(server.baseUrl, authorizationUrl(client, await oauth.calculatePKCECodeChallenge(verifier)), apiKey);
  return { client, verifier, back };
}

async function exchange(client: oauth.Client, back: URL, verifier: string, redirectUri = REDIRECT): Promise<Response> {
  const params = oauth.validateAuthResponse(as, client, back, 'st-1');
  return oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure);
}

async function tokensFor(apiKey: string) {
  const { client, verifier, back } = await signIn(apiKey);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange(client, back, verifier));
  return { client, tokens };
}

async function refresh(client: oauth.Client, refreshToken: string): Promise<Response> {
  return oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure);
}

/** An initialize on /mcp with the credential; the status (200 when it is accepted). */
async function mcpStatus(credential: string, header: 'bearer' | 'x-api-key' = 'bearer'): Promise<{ status: number; challenge: string | null }> {
  const response = await fetch(`${server.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(header === 'bearer' ? { authorization: `Bearer ${credential}` } : { 'x-api-key': credential }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}

async function tokenError(response: Response): Promise<{ status: number; error: string }> {
  return { status: response.status, error: ((await response.json()) as { error: string }).error };
}

describe('discovery', () => {
  it('a keyless /mcp is refused with the resource_metadata challenge; the documents chain to the endpoints', async () => {
    const refused = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get('www-authenticate')!;
    expect(challenge).toContain(`resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).not.toContain('invalid_token');
    const resource = await oauth.processResourceDiscoveryResponse(
      new URL(`${server.baseUrl}/mcp`),
      await oauth.resourceDiscoveryRequest(new URL(`${server.baseUrl}/mcp`), insecure),
    );
    expect(resource.authorization_servers).toEqual([server.baseUrl]);
    expect(as).toMatchObject({
      issuer: server.baseUrl,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      client_id_metadata_document_supported: true,
    });
    expect(as.registration_endpoint).toBe(`${server.baseUrl}/oauth/register`);
    expect(as.revocation_endpoint).toBe(`${server.baseUrl}/oauth/revoke`);
  });

  it('GLEANER_PUBLIC_URL names the issuer and the resource', async () => {
    const behindProxy = await startTestServer({ env: { GLEANER_PUBLIC_URL: 'https://gleaner.example.org/' } });
    try {
      const document = (await behindProxy.request('GET', '/.well-known/oauth-protected-resource/mcp')).body;
      expect(document).toMatchObject({ resource: 'https://gleaner.example.org/mcp', authorization_servers: ['https://gleaner.example.org'] });
      const refused = await fetch(`${behindProxy.baseUrl}/mcp`, { method: 'POST' });
      expect(refused.headers.get('www-authenticate')).toContain('resource_metadata="https://gleaner.example.org/.well-known/oauth-protected-resource/mcp"');
    } finally {
      await behindProxy.close();
    }
  });
});

describe('sign-in, tokens and the calls they make', () => {
  it('a registered client signs in, its access token acts as the key on /mcp, and the refresh token rotates', async () => {
    const apiKey = await server.createKey('Pro');
    const { client, verifier, back } = await signIn(apiKey);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('iss')).toBe(server.baseUrl);
    const response = await exchange(client, back, verifier);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'mcp' });
    expect(tokens.access_token).toMatch(/^glat_/);
    expect((await mcpStatus(tokens.access_token)).status).toBe(200);

    // The tokens act as the key: its account, and the console's list of approved clients names this client.
    const account = await server.app.services.accounts.authenticate(apiKey);
    expect(await server.app.oauth.tokens.authenticate(tokens.access_token, `${server.baseUrl}/mcp`)).toMatchObject({ id: account.id });
    expect(await server.app.oauth.grants.list(account.id)).toEqual([expect.objectContaining({ clientId: client.client_id, clientName: 'Test Assistant' })]);

    // Rotation: the new refresh token works; the old one, presented again, revokes the whole family.
    const second = await oauth.processRefreshTokenResponse(as, client, await refresh(client, tokens.refresh_token!));
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect((await mcpStatus(second.access_token)).status).toBe(200);
    expect(await tokenError(await refresh(client, tokens.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
    expect((await mcpStatus(second.access_token)).status).toBe(401);
    expect(await tokenError(await refresh(client, second.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await server.app.oauth.grants.list(account.id)).toEqual([]);
  });

  it('x-api-key and Bearer gl_… keep working on /mcp beside OAuth', async () => {
    const apiKey = await server.createKey('Pro');
    expect((await mcpStatus(apiKey, 'x-api-key')).status).toBe(200);
    expect((await mcpStatus(apiKey, 'bearer')).status).toBe(200);
  });

  it('an OAuth token is for /mcp only: REST refuses it', async () => {
    const { tokens } = await tokensFor(await server.createKey('Pro'));
    const response = await fetch(`${server.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(response.status).toBe(401);
  });

  it('a confidential client (client_secret_basic) must present its secret at the token endpoint', async () => {
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], client_name: 'Server App' }, insecure),
    );
    expect(registered.token_endpoint_auth_method).toBe('client_secret_basic');
    const secret = registered.client_secret as string;
    expect(secret).toMatch(/^glcs_/);
    const client = registered as oauth.Client;
    const apiKey = await server.createKey('Pro');
    const verifier = oauth.generateRandomCodeVerifier();
    const back = await signInWithForm(server.baseUrl, authorizationUrl(client, await oauth.calculatePKCECodeChallenge(verifier)), apiKey);
    const params = oauth.validateAuthResponse(as, client, back, 'st-1');
    const wrong = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic('glcs_wrong'), params, REDIRECT, verifier, insecure);
    expect(await tokenError(wrong)).toEqual({ status: 401, error: 'invalid_client' });
    // The failed attempt used the code: sign in again for a fresh one.
    const again = await signInWithForm(server.baseUrl, authorizationUrl(client, await oauth.calculatePKCECodeChallenge(verifier)), apiKey);
    const right = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(secret), oauth.validateAuthResponse(as, client, again, 'st-1'), REDIRECT, verifier, insecure);
    expect((await oauth.processAuthorizationCodeResponse(as, client, right)).access_token).toMatch(/^glat_/);
  });

  it('a loopback redirect may come back on another port (native apps); any other difference is refused', async () => {
    const client = await registerPublicClient(['http://127.0.0.1:1/callback']);
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
    expect((await openSignInPage(authorizationUrl(client, challenge, { redirect_uri: 'http://127.0.0.1:40123/callback' }))).status).toBe(200);
    expect((await openSignInPage(authorizationUrl(client, challenge, { redirect_uri: 'http://127.0.0.1:40123/other' }))).status).toBe(400);
    expect((await openSignInPage(authorizationUrl(client, challenge, { redirect_uri: 'http://localhost:40123/callback' }))).status).toBe(400);
  });

  it('a Client ID Metadata Document names the client: fetched through net/, its redirect URIs checked exactly', async () => {
    const clientId = 'https://client.test/oauth/client.json';
    metadataDocument = { client_id: clientId, client_name: 'Document App', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
    const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
    const verifier = oauth.generateRandomCodeVerifier();
    const url = authorizationUrl(client, await oauth.calculatePKCECodeChallenge(verifier));
    const page = await openSignInPage(url);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Document App');
    expect(page.html).toContain('client.test');
    const apiKey = await server.createKey('Pro');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange(client, await signInWithForm(server.baseUrl, url, apiKey), verifier));
    expect((await mcpStatus(tokens.access_token)).status).toBe(200);
    expect((await openSignInPage(authorizationUrl(client, 'x'.repeat(43), { redirect_uri: 'https://evil.test/callback' }))).status).toBe(400);
  });

  it('a Client ID Metadata Document on a private address is refused by the SSRF guard', async () => {
    const page = await openSignInPage(authorizationUrl({ client_id: 'https://127.0.0.1:1/client.json' }, 'x'.repeat(43)));
    expect(page.status).toBe(400);
    expect(page.html).toMatch(/could not be read/);
  });
});

describe('refused', () => {
  it('a wrong redirect URI: at the authorization endpoint (a page, never a redirect) and at the token endpoint', async () => {
    const client = await registerPublicClient();
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const page = await openSignInPage(authorizationUrl(client, challenge, { redirect_uri: 'https://attacker.test/callback' }));
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(page.html).toContain('Wrong redirect URI');
    const back = await signInWithForm(server.baseUrl, authorizationUrl(client, challenge), await server.createKey('Pro'));
    expect(await tokenError(await exchange(client, back, verifier, 'http://127.0.0.1:53682/other'))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('registration refuses redirect URIs that are not https or loopback, or that run code', async () => {
    for (const uri of ['http://example.com/cb', 'javascript:alert(1)', 'data:text/html,hi', 'https://example.com/cb#frag', 'not a uri']) {
      const response = await fetch(as.registration_endpoint!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [uri] }) });
      expect({ uri, status: response.status, error: ((await response.json()) as { error: string }).error }).toEqual({ uri, status: 400, error: 'invalid_redirect_uri' });
    }
  });

  it('no PKCE, or PKCE without S256, is refused on this server’s page as invalid_request (never redirected)', async () => {
    const client = await registerPublicClient();
    const plain = await openSignInPage(authorizationUrl(client, 'a'.repeat(43), { code_challenge_method: 'plain' }));
    expect(plain.status).toBe(400);
    expect(plain.headers.get('location')).toBeNull();
    expect(plain.html).toContain('invalid_request');
    const url = new URL(authorizationUrl(client, 'a'.repeat(43)));
    url.searchParams.delete('code_challenge');
    const none = await openSignInPage(url.toString());
    expect(none.status).toBe(400);
    expect(none.headers.get('location')).toBeNull();
    expect(none.html).toContain('invalid_request');
  });

  it('a missing or wrong PKCE verifier', async () => {
    const apiKey = await server.createKey('Pro');
    const first = await signIn(apiKey);
    const missing = await fetch(as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: first.back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: first.client.client_id }),
    });
    expect(await tokenError(missing)).toEqual({ status: 400, error: 'invalid_request' });
    const second = await signIn(apiKey, first.client);
    expect(await tokenError(await exchange(second.client, second.back, oauth.generateRandomCodeVerifier()))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('a reused authorization code: refused, and the tokens it gave are revoked', async () => {
    const { client, verifier, back } = await signIn(await server.createKey('Pro'));
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange(client, back, verifier));
    expect((await mcpStatus(tokens.access_token)).status).toBe(200);
    expect(await tokenError(await exchange(client, back, verifier))).toEqual({ status: 400, error: 'invalid_grant' });
    expect((await mcpStatus(tokens.access_token)).status).toBe(401);
  });

  it('an expired access token gets 401 with invalid_token; the refresh token still renews it', async () => {
    const { client, tokens } = await tokensFor(await server.createKey('Pro'));
    now += 3_601_000;
    const expired = await mcpStatus(tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.challenge).toContain('error="invalid_token"');
    expect(expired.challenge).toContain('resource_metadata=');
    const renewed = await oauth.processRefreshTokenResponse(as, client, await refresh(client, tokens.refresh_token!));
    expect((await mcpStatus(renewed.access_token)).status).toBe(200);
  });

  it('a revoked token (RFC 7009): an access token alone; a refresh token ends its sign-in', async () => {
    const { client, tokens } = await tokensFor(await server.createKey('Pro'));
    const revoked = await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure);
    await oauth.processRevocationResponse(revoked);
    expect((await mcpStatus(tokens.access_token)).status).toBe(401);
    const renewed = await oauth.processRefreshTokenResponse(as, client, await refresh(client, tokens.refresh_token!));
    expect((await mcpStatus(renewed.access_token)).status).toBe(200);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), renewed.refresh_token!, insecure));
    expect((await mcpStatus(renewed.access_token)).status).toBe(401);
    expect(await tokenError(await refresh(client, renewed.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('the console revokes an approved client of its own account only; its tokens then get 401', async () => {
    const apiKey = await server.createKey('Pro');
    const { tokens } = await tokensFor(apiKey);
    const account = await server.app.services.accounts.authenticate(apiKey);
    const other = await server.app.services.accounts.authenticate(await server.createKey('Pro'));
    const [grant] = await server.app.oauth.grants.list(account.id);
    expect(await server.app.oauth.grants.revoke(other.id, grant.grantId)).toBe(false);
    expect((await mcpStatus(tokens.access_token)).status).toBe(200);
    expect(await server.app.oauth.grants.revoke(account.id, grant.grantId)).toBe(true);
    expect((await mcpStatus(tokens.access_token)).status).toBe(401);
    expect(await server.app.oauth.grants.list(account.id)).toEqual([]);
  });

  it('a token of a revoked key: 401, and its refresh token no longer renews', async () => {
    const apiKey = await server.createKey('Pro');
    const { client, tokens } = await tokensFor(apiKey);
    const account = await server.app.services.accounts.authenticate(apiKey);
    await server.app.services.accounts.revoke(account.id);
    expect((await mcpStatus(tokens.access_token)).status).toBe(401);
    expect(await tokenError(await refresh(client, tokens.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('a forged sign-in form: wrong CSRF token, no cookie, another site’s post, an unknown request; and a wrong key', async () => {
    const apiKey = await server.createKey('Pro');
    const client = await registerPublicClient();
    const url = authorizationUrl(client, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()));
    const page = await openSignInPage(url);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*form-action 'self' http:\/\/127\.0\.0\.1:53682.*frame-ancestors 'none'/);
    expect(page.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    expect(page.html).not.toMatch(/<script/i);

    const forged = [
      await postSignIn(server.baseUrl, page, apiKey, { fields: { csrf: 'A'.repeat(43) } }),
      await postSignIn(server.baseUrl, page, apiKey, { cookie: null }),
      await postSignIn(server.baseUrl, page, apiKey, { cookie: `gleaner_oauth_csrf=${'A'.repeat(43)}`, fields: { csrf: 'A'.repeat(43) } }),
      await postSignIn(server.baseUrl, page, apiKey, { headers: { origin: 'https://attacker.test' } }),
      await postSignIn(server.baseUrl, page, apiKey, { headers: { 'sec-fetch-site': 'cross-site' } }),
    ];
    for (const reply of forged) {
      expect(reply.status).toBe(403);
      expect(reply.location).toBeNull();
    }
    expect((await postSignIn(server.baseUrl, { ...page, requestId: 'B'.repeat(32) }, apiKey)).status).toBe(400);
    const wrongKey = await postSignIn(server.baseUrl, page, 'gl_not_a_key');
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.html).toContain('unknown or revoked');
    // The genuine post still works once, and only once.
    const approved = await postSignIn(server.baseUrl, page, apiKey);
    expect(approved.status).toBe(303);
    expect(new URL(approved.location!).searchParams.get('state')).toBe('st-1');
    expect((await postSignIn(server.baseUrl, page, apiKey)).status).toBe(400);
  });

  it('denying sends access_denied back with the state', async () => {
    const client = await registerPublicClient();
    const page = await openSignInPage(authorizationUrl(client, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())));
    const denied = await postSignIn(server.baseUrl, page, '', { fields: { decision: 'deny' } });
    expect(denied.status).toBe(303);
    const back = new URL(denied.location!);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'st-1' });
  });

  it('a token for another resource is refused (RFC 8707)', async () => {
    const client = await registerPublicClient();
    const page = await openSignInPage(authorizationUrl(client, 'a'.repeat(43), { resource: 'https://other.test/mcp' }));
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(page.html).toContain('invalid_target');
  });
});

describe('the security review of issue 39: its Low OAuth findings', () => {
  it('a malformed %-escape in Authorization: Basic is invalid_client (401), at the token and the revocation endpoints', async () => {
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], client_name: 'Server App' }, insecure),
    );
    for (const credentials of [`${registered.client_id}:%E0%A4%A`, `%zz:secret`, `${registered.client_id}:%`]) {
      for (const [endpoint, body] of [
        [as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: 'glrt_x' }],
        [as.revocation_endpoint!, { token: 'glat_x' }],
      ] as const) {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
          body: new URLSearchParams(body),
        });
        expect({ endpoint, credentials, ...(await tokenError(response)) }).toEqual({ endpoint, credentials, status: 401, error: 'invalid_client' });
      }
    }
  });

  it('a refusal before approval is never sent to a registered redirect URI (no open redirector through open registration)', async () => {
    // Anyone may register any https redirect URI: an error sent there would make this server an open redirector.
    const client = await registerPublicClient(['https://phishing.test/landing']);
    const refusals: Array<Record<string, string>> = [{ response_type: 'x' }, { code_challenge_method: 'plain' }, { code_challenge: 'short' }, { resource: 'https://elsewhere.test/mcp' }, { state: 's'.repeat(2_001) }];
    for (const extra of refusals) {
      const page = await openSignInPage(authorizationUrl(client, 'a'.repeat(43), { redirect_uri: 'https://phishing.test/landing', ...extra }));
      expect({ extra, status: page.status, location: page.headers.get('location') }).toEqual({ extra, status: 400, location: null });
    }
  });

  it('the metadata-document refusal tells a keyless caller nothing of how names resolve here', async () => {
    for (const clientId of ['https://127.0.0.1:1/client.json', 'https://localhost:1/client.json', 'https://no-such-name.invalid/client.json']) {
      const page = await openSignInPage(authorizationUrl({ client_id: clientId }, 'x'.repeat(43)));
      expect(page.status).toBe(400);
      expect(page.html).toMatch(/could not be fetched, or its address is not allowed/);
      expect(page.html).not.toMatch(/loopback|127\.0\.0\.1, |private|ENOTFOUND|EAI_AGAIN|resolve/i);
    }
  });

  it('an access token issued for one resource URL is refused at another host name of the same server', async () => {
    const { tokens } = await tokensFor(await server.createKey('Pro'));
    expect((await mcpStatus(tokens.access_token)).status).toBe(200);
    const otherName = server.baseUrl.replace('127.0.0.1', 'localhost');
    const response = await fetch(`${otherName}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tokens.access_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    await response.text();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});

describe('the security review of issue 39: unauthenticated writes bounded per address', () => {
  let fresh: TestServer;
  beforeAll(async () => {
    fresh = await startTestServer();
  });
  afterAll(async () => {
    await fresh?.close();
  });

  const registerFrom = (address: string, body: unknown = { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) =>
    fetch(`${fresh.baseUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address }, body: JSON.stringify(body) });

  // Expired rows (registrations never used, pending sign-ins) are deleted by the store's own sweep on SQLite
  // (test/unit/store-sweep.test.ts).
  it('registration: 20 from one address, then 429 with Retry-After; another address still registers', async () => {
    for (let i = 0; i < 20; i++) expect((await registerFrom('203.0.113.20')).status).toBe(201);
    const refused = await registerFrom('203.0.113.20');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect((await registerFrom('203.0.113.21')).status).toBe(201);
  });

  it('a registration is bounded in size: redirect URIs together at most 4,000 characters, the body at most 16 KB', async () => {
    const long = Array.from({ length: 3 }, (_, i) => `https://app.test/${i}/${'p'.repeat(1_900)}`);
    const tooLong = await registerFrom('203.0.113.30', { redirect_uris: long, token_endpoint_auth_method: 'none' });
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    const big = await registerFrom('203.0.113.30', { redirect_uris: [REDIRECT], client_uri: 'https://app.test/', padding: 'x'.repeat(20_000) });
    expect(big.status).toBe(400);
    expect(((await big.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });

  it('sign-in pages: 30 opened from one address, then a 429 page; another address still gets its page', async () => {
    const client = (await (await registerFrom('203.0.113.40')).json()) as oauth.Client;
    const url = new URL(`${fresh.baseUrl}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }).toString();
    const open = (address: string) => fetch(url, { redirect: 'manual', headers: { 'x-forwarded-for': address } });
    for (let i = 0; i < 30; i++) expect((await open('203.0.113.41')).status).toBe(200);
    const refused = await open('203.0.113.41');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.text()).toContain('Too many sign-in pages');
    expect((await open('203.0.113.42')).status).toBe(200);
  });

  it('key guessing on the sign-in form: ten wrong keys from one address, then 429 (even for the right key)', async () => {
    const apiKey = await fresh.createKey('Pro');
    const client = (await (await registerFrom('203.0.113.50')).json()) as oauth.Client;
    const url = new URL(`${fresh.baseUrl}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }).toString();
    const page = await openSignInPage(url.toString());
    const from = (address: string, key: string) => postSignIn(fresh.baseUrl, page, key, { headers: { 'x-forwarded-for': address } });
    for (let i = 0; i < 10; i++) expect((await from('203.0.113.51', `gl_guess_${i}`)).status).toBe(401);
    const refused = await from('203.0.113.51', apiKey);
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Too many attempts with a key that is not valid');
    expect((await from('203.0.113.52', apiKey)).status).toBe(303);
  });
});
