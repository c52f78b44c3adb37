/**
 * An operator's identity provider instead of Gleaner's sign-in (GLEANER_OAUTH_ISSUER, issue 29.1): a
 * provider on loopback publishes its metadata and JWKS; its signed access tokens reach /mcp as the
 * account their claim maps to, and everything else is refused (another issuer, another audience, an
 * expired token, a shared-secret token, an unmapped user, a revoked key).
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { startTestServer, type TestServer } from '../support/server.js';
import { consoleSession } from '../support/console-session.js';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';

const AUDIENCE = 'https://gleaner.test/mcp';
let provider: http.Server;
let issuer: string;
let privateKey: CryptoKey;
let otherKey: CryptoKey;
let jwksRequests = 0;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  provider = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    else if (req.url === '/keys') {
      jwksRequests++;
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});
afterAll(async () => {
  provider?.closeAllConnections();
  await new Promise((resolve) => provider?.close(resolve));
});

function token(claims: Record<string, unknown>, options: { key?: CryptoKey; iss?: string; aud?: string; exp?: string | number } = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(options.iss ?? issuer)
    .setAudience(options.aud ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(options.exp ?? '5m')
    .sign(options.key ?? privateKey);
}

async function mcp(server: TestServer, credential: string): Promise<{ status: number; body: string; challenge: string | null }> {
  const response = await fetch(`${server.baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${credential}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  return { status: response.status, body: await response.text(), challenge: response.headers.get('www-authenticate') };
}

describe('GLEANER_OAUTH_ISSUER: the claim is the account id', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { GLEANER_OAUTH_ISSUER: issuer, GLEANER_OAUTH_AUDIENCE: AUDIENCE } });
  });
  afterAll(() => server?.close());

  it('a valid token acts as its account; keys keep working; the resource metadata names the provider', async () => {
    const apiKey = await server.createKey('Pro');
    const account = await server.app.services.accounts.authenticate(apiKey);
    expect((await mcp(server, await token({ sub: account.id }))).status).toBe(200);
    expect((await mcp(server, apiKey)).status).toBe(200);
    expect((await server.request('GET', '/.well-known/oauth-protected-resource/mcp')).body.authorization_servers).toEqual([issuer]);
    // Gleaner's own sign-in is not offered beside the provider's.
    expect((await server.request('GET', '/.well-known/oauth-authorization-server')).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/oauth/authorize?client_id=x`)).status).toBe(404);
    expect(jwksRequests).toBeGreaterThan(0);
    // The provider keeps the approvals: the console has no OAuth clients section to show or revoke them.
    const cookie = await consoleSession(server.baseUrl, apiKey);
    expect(await (await fetch(`${server.baseUrl}/console`, { headers: { cookie } })).text()).not.toContain('/console/oauth-clients');
    expect((await fetch(`${server.baseUrl}/console/oauth-clients`, { headers: { cookie } })).status).toBe(404);
  });

  it('refused: another issuer, another audience, expired, signed by another key, HS256, no such account, a revoked key', async () => {
    const apiKey = await server.createKey('Pro');
    const account = await server.app.services.accounts.authenticate(apiKey);
    const hs256 = await new SignJWT({ sub: account.id })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(issuer)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a shared secret of at least 32 bytes!!'));
    const refused = [
      await token({ sub: account.id }, { iss: 'https://other-issuer.test' }),
      await token({ sub: account.id }, { aud: 'https://other.test/mcp' }),
      await token({ sub: account.id }, { exp: Math.floor(Date.now() / 1000) - 120 }),
      await token({ sub: account.id }, { key: otherKey }),
      hs256,
      await token({ sub: 'acct_doesnotexist' }),
    ];
    for (const credential of refused) {
      const reply = await mcp(server, credential);
      expect(reply.status).toBe(401);
      expect(reply.challenge).toContain('invalid_token');
    }
    const valid = await token({ sub: account.id });
    expect((await mcp(server, valid)).status).toBe(200);
    await server.app.services.accounts.revoke(account.id);
    expect((await mcp(server, valid)).status).toBe(401);
  });
});

describe('GLEANER_OAUTH_ISSUER with GLEANER_OAUTH_ACCOUNTS: a claim value mapped to an account', () => {
  it('the mapped user acts as the account; an unmapped one is refused', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-oauth-external-'));
    // The account exists before the server starts with the mapping, as an operator would do it.
    const setup = await createApp(loadConfig({ GLEANER_DATA_DIR: dataDir, GLEANER_LOG_LEVEL: 'silent' }), { logger: silentLogger });
    const { account } = await setup.services.accounts.create({ plan: 'Pro' });
    await setup.close();
    const server = await startTestServer({
      dataDir,
      env: { GLEANER_OAUTH_ISSUER: issuer, GLEANER_PUBLIC_URL: 'https://gleaner.test', GLEANER_OAUTH_ACCOUNT_CLAIM: 'email', GLEANER_OAUTH_ACCOUNTS: `ada@example.org=${account.id}` },
    });
    try {
      expect((await mcp(server, await token({ sub: 'u1', email: 'ada@example.org' }))).status).toBe(200);
      expect((await mcp(server, await token({ sub: 'u2', email: 'eve@example.org' }))).status).toBe(401);
      expect((await mcp(server, await token({ sub: account.id }))).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('an issuer without an audience or a public URL stops the start with a message', () => {
    expect(() => loadConfig({ GLEANER_OAUTH_ISSUER: issuer })).toThrow(/GLEANER_OAUTH_AUDIENCE/);
    expect(() => loadConfig({ GLEANER_OAUTH_ISSUER: issuer, GLEANER_OAUTH_AUDIENCE: AUDIENCE, GLEANER_OAUTH_ACCOUNTS: 'ada=bob' })).toThrow(/claimValue=acct_/);
  });
});
