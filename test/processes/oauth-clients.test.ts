/**
 * Real MCP clients sign in to a real `gleaner serve` with OAuth and no key header (issue 29 acceptance):
 * the MCP SDK's v2 client (@modelcontextprotocol/client) with an OAuth provider, and `mcp-remote`
 * started without --header. Each is sent to the sign-in page, which a headless Chromium (Debian's,
 * driven by playwright-core) fills with a key and approves; then the client lists the tools and calls
 * web_scrape on a loopback site, and that call is charged to the key that signed in. Then two serve
 * processes on one Redis accept each other's tokens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { callApi, createKeyWithCli, freePort, hasRedis, startGleaner, startRedis, type GleanerProcess } from '../support/processes.js';
import { startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { hasChromium, launchChromium, signInWithBrowser, startCallbackServer } from '../support/oauth.js';

type Tokens = Awaited<ReturnType<OAuthClientProvider['tokens']>>;
type Info = Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;

/** An OAuth provider as an application keeps one: in memory, with a loopback redirect; the person signs in in the browser. */
function browserProvider(redirectUrl: string, signIn: (url: URL) => void): OAuthClientProvider {
  let info: Info;
  let tokens: Tokens;
  let verifier = '';
  let discovery: Awaited<ReturnType<NonNullable<OAuthClientProvider['discoveryState']>>>;
  return {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return { redirect_uris: [redirectUrl], client_name: 'SDK v2 Test Assistant', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
    },
    clientInformation: () => info,
    saveClientInformation: (value) => void (info = value),
    tokens: () => tokens,
    saveTokens: (value) => void (tokens = value),
    redirectToAuthorization: (url) => signIn(url),
    saveCodeVerifier: (value) => void (verifier = value),
    codeVerifier: () => verifier,
    saveDiscoveryState: (state) => void (discovery = state),
    discoveryState: () => discovery,
  };
}

const artifacts = path.join(os.tmpdir(), 'gleaner-test-artifacts', 'oauth');

describe.skipIf(!hasChromium())('OAuth sign-in of real MCP clients against gleaner serve, in headless Chromium', () => {
  let browser: Browser;
  let site: FixtureSite;
  const stops: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    browser = await launchChromium();
    site = await startFixtureSite({ pages: 3 });
  }, 120_000);
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await browser?.close();
    await site?.close();
  });

  async function serve(env: Record<string, string>, port = 0): Promise<GleanerProcess> {
    const proc = await startGleaner(['serve', '--port', String(port)], env);
    stops.push(() => proc.stop());
    return proc;
  }

  function baseEnv(): Record<string, string> {
    return { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-oauth-')) };
  }

  async function credits(url: string, key: string): Promise<number> {
    return (await callApi(url, key, 'GET', '/v1/me')).body.credits;
  }

  it('the MCP SDK v2 client signs in through the page, lists the tools and calls one, charged to the key', { timeout: 240_000 }, async () => {
    const env = baseEnv();
    const key = await createKeyWithCli(env, 'Pro', 50);
    const other = await createKeyWithCli(env, 'Pro', 50);
    const server = await serve(env);
    const callback = await startCallbackServer();
    stops.push(() => callback.close());
    let signedIn: Promise<URL> | undefined;
    const provider = browserProvider(callback.url, (url) => {
      signedIn = signInWithBrowser(browser, url.toString(), key, { screenshot: path.join(artifacts, 'sign-in-sdk-v2.png') });
    });

    const first = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'sdk-v2-oauth', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(signedIn).toBeDefined();
    const landed = await signedIn!;
    const back = await callback.next();
    expect(landed.origin).toBe(new URL(callback.url).origin);
    expect(back.searchParams.get('code')).toBeTruthy();
    await first.finishAuth(back.searchParams);

    const client = new Client({ name: 'sdk-v2-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider }));
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('web_scrape');
    const result = await client.callTool({ name: 'web_scrape', arguments: { url: `${site.origin}/` } });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('Page 1');
    await client.close();

    expect(await credits(server.url!, key)).toBe(49);
    expect(await credits(server.url!, other)).toBe(50);
  });

  it('mcp-remote without a header completes OAuth through the page, lists the tools and calls one, charged to the key', { timeout: 240_000 }, async () => {
    const env = baseEnv();
    const key = await createKeyWithCli(env, 'Pro', 50);
    const server = await serve(env);
    const port = await freePort();
    const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-mcp-remote-'));
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.resolve('node_modules/mcp-remote/dist/proxy.js'), `${server.url}/mcp`, String(port)],
      env: { ...(process.env as Record<string, string>), MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: 'none', DISPLAY: '' },
      stderr: 'pipe',
    });
    // mcp-remote prints the authorization URL when it cannot open a browser: the person (Chromium here) opens it.
    const authorizationUrl = new Promise<string>((resolve) => {
      transport.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /Please authorize this client by visiting:\s+(\S+)/.exec(stderr);
        if (match) resolve(match[1]);
      });
    });
    const client = new Client({ name: 'through-mcp-remote', version: '1.0.0' });
    const connected = client.connect(transport);
    const url = await authorizationUrl;
    const landed = await signInWithBrowser(browser, url, key, { screenshot: path.join(artifacts, 'sign-in-mcp-remote.png') });
    expect(landed.port).toBe(String(port));
    await connected;
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toContain('web_scrape');
      const result = await client.callTool({ name: 'web_scrape', arguments: { url: `${site.origin}/` } });
      expect(result.isError, stderr).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(await credits(server.url!, key)).toBe(49);
  });

  it.skipIf(!hasRedis())('two serve processes on one Redis accept each other’s tokens, and a key revoked on one ends them on both', { timeout: 240_000 }, async () => {
    const redis = await startRedis();
    stops.push(() => redis.stop());
    // One public URL for both, as behind a load balancer: a token is for that resource URL (issue 39), whichever process takes it.
    const portA = await freePort();
    const env = { ...baseEnv(), GLEANER_STORE_URL: redis.url, GLEANER_PUBLIC_URL: `http://127.0.0.1:${portA}` };
    const key = await createKeyWithCli(env, 'Pro', 50);
    const a = await serve(env, portA);
    const b = await serve(env);
    const callback = await startCallbackServer();
    stops.push(() => callback.close());
    let signedIn: Promise<URL> | undefined;
    const provider = browserProvider(callback.url, (url) => (signedIn = signInWithBrowser(browser, url.toString(), key)));
    // Signed in on a...
    const first = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'redis-oauth', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await signedIn;
    await first.finishAuth((await callback.next()).searchParams);
    const token = (await provider.tokens())!.access_token;
    // ... the token works on b, and b charges the key.
    const client = new Client({ name: 'redis-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const result = await client.callTool({ name: 'web_scrape', arguments: { url: `${site.origin}/` } });
    expect(result.isError).toBeFalsy();
    await client.close();
    expect(await credits(a.url!, key)).toBe(49);
    // The refresh token a issued is rotated by b; the new access token works on a, and a rotates the new refresh token.
    const stored = (await provider.tokens())!;
    const clientId = (await provider.clientInformation())!.client_id;
    const refresh = (base: string, refreshToken: string) =>
      fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString(),
      });
    const rotated = await refresh(b.url!, stored.refresh_token!);
    expect(rotated.status).toBe(200);
    const renewed = (await rotated.json()) as { access_token: string; refresh_token: string };
    const onA = await fetch(`${a.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${renewed.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    await onA.text();
    expect(onA.status).toBe(200);
    expect((await refresh(a.url!, renewed.refresh_token)).status).toBe(200);

    // `gleaner keys revoke` ends the token on both processes.
    const id = (await callApi(a.url!, key, 'GET', '/v1/me')).body.id as string;
    expect(id).toMatch(/^acct_/);
    await runCli(env, ['keys', 'revoke', id]);
    for (const proc of [a, b]) {
      const response = await fetch(`${proc.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('invalid_token');
    }
  });
});

async function runCli(env: Record<string, string>, args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`gleaner ${args.join(' ')} exited ${code}: ${out}`);
  return out;
}

