/**
 * Issue 20 ("Hardening II") findings 1, 5, 8 and 10, and the acceptance point that no configured
 * secret shows up anywhere: a real `gleaner serve` (and `worker`, `mcp`, `doctor`) with distinct
 * secrets planted in every configured URL, key and cookie, its stderr and every reply grepped for them.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectMcp } from '../support/mcp.js';
import { createKeyWithCli, freePort, spawnChargedServer, startGleaner, type GleanerProcess } from '../support/processes.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startTestProxy, type TestProxy } from '../support/proxy.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { chargeOperation } from '../support/charged-server.js';
import { HttpClient } from '../../src/net/http.js';
import { fetchPoToken, poTokenExpiry, PO_TOKEN_MAX_CHARS, PO_TOKEN_MAX_LIFETIME_MS } from '../../src/platforms/youtube/potoken.js';
import { redactText, redactUrl, rememberConfiguredSecrets, rememberSecrets } from '../../src/redact.js';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.js';
import { profileSecrets } from '../../src/profile/load.js';
import { generateMedia } from '../support/media.js';
import { writeCookiesFile } from '../support/cookies-file.js';
import { GLEANER_MAIN } from '../support/built-cli.js';

const run = promisify(execFile);

/** A loopback server answering every request with `reply` (status, body) built from the request. */
async function startServer(reply: (req: http.IncomingMessage, body: string) => { status: number; type?: string; body: string | Buffer }): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { status, type, body } = reply(req, Buffer.concat(chunks).toString('utf8'));
    res.writeHead(status, { 'content-type': type ?? 'application/json' }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A redis-server on a free loopback port that wants `password`. */
async function startRedisWithPassword(password: string): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', password], { stdio: 'pipe' });
  await new Promise<void>((resolve) => redis.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept') && resolve()));
  return {
    port,
    async stop() {
      if (redis.exitCode !== null) return;
      redis.kill();
      await once(redis, 'exit');
    },
  };
}

describe('redaction (finding 1): what is taken out of a text', () => {
  it('userinfo and secret query values of any URL, and remembered secrets, keeping the rest', () => {
    expect(redactUrl('redis://:RedisPw0rd@127.0.0.1:16379')).toBe('redis://***@127.0.0.1:16379');
    expect(redactUrl('http://user:pa55@proxy.example:3128/')).toBe('http://***@proxy.example:3128/');
    expect(redactUrl('https://api.example/v1?api_key=abc&model=x&sig=zz&upload_token=t&author=me')).toBe('https://api.example/v1?api_key=***&model=x&sig=***&upload_token=***&author=me');
    // Not userinfo: an @ in the path.
    expect(redactUrl('https://medium.com/@someone/post?x=1')).toBe('https://medium.com/@someone/post?x=1');
    expect(redactText('the store redis://:RedisPw0rd@127.0.0.1:16379 did not answer (connect ECONNREFUSED)')).toBe('the store redis://***@127.0.0.1:16379 did not answer (connect ECONNREFUSED)');
    expect(redactText('{"msg":"x","url":"http://u:p4ss@h/?token=T0K3N\\n"}')).toBe('{"msg":"x","url":"http://***@h/?token=***\\n"}');
  });
});

describe('configured secrets never reach a reply, a log line or doctor (finding 1 and the planted-secrets acceptance)', { timeout: 600_000 }, () => {
  const secrets = {
    storePassword: 'StoreRedisPw-7Q2m',
    youtubeProxyPassword: 'YtProxyPw-4Kx9',
    youtubeProxyUser: 'YtProxyUser-h3J1',
    proxyPassword: 'GlobalProxyPw-8Zr2',
    tiktokProxyPassword: 'TikTokProxyPw-2Lc5',
    sttKey: 'SttApiKey-9Vd3xw',
    sttUrlPassword: 'SttUrlPw-5Hq8',
    sttUrlToken: 'SttQueryToken-1Ns6',
    llmKey: 'LlmApiKey-6Tb4kp',
    llmUrlPassword: 'LlmUrlPw-3Gw7',
    llmUrlToken: 'LlmQueryToken-0Pe2',
    potPassword: 'PotProviderPw-8Yu1',
    potToken: 'PotQueryToken-4Ri9',
    webhookSecret: 'WebhookSecret-5Ao3-long-enough',
    cookieSid: 'CookieYoutubeSid-2Xe8',
    cookieSapisid: 'CookieSapisid-7Mn4',
    cookieInstagram: 'CookieInstagramSession-9Kc1',
    webhookPassword: 'CallerWebhookPw-6Fj2',
    webhookToken: 'CallerWebhookToken-3Qs7',
    instagramProxyUser: 'IgProxyUser-5Wd2',
    instagramProxyPassword: 'IgProxyPw-1Rk7',
    xProxyPassword: 'XProxyPw-6Jb3',
    facebookProxyPassword: 'FbProxyPw-0Mv5',
    browserWsPassword: 'BrowserWsPw-7Pn2',
    browserWsToken: 'BrowserWsToken-4Cz8',
    xBearer: 'XBearerToken-Operator-3Hy6-0123456789',
    profileCookie: 'ProfileHeaderCookie-8Lq4',
    cookieXAuth: 'CookieXAuthToken-2Vf9',
    cookieXCt0: 'CookieXCt0-5Nb1',
    cookieTiktok: 'CookieTiktokSession-7Gs3',
    cookieFacebook: 'CookieFacebookXs-9Dt6',
    stdioMadeUpKey: 'gl_StdioMadeUpKey-6Ye2',
    publicUrlPassword: 'PublicUrlPw-4Tz6',
    jwksPassword: 'JwksUrlPw-8Qa3',
  };
  /** Every planted secret; the operator's API key joins it once created (it is GLEANER_API_KEY of every process). */
  const planted: string[] = Object.values(secrets);
  /** Every text a caller or an operator got, with where it came from. */
  const seen: Array<{ where: string; text: string }> = [];
  const look = (where: string, text: string) => seen.push({ where, text });
  const leaks = () => seen.flatMap(({ where, text }) => planted.filter((secret) => text.includes(secret)).map((secret) => `${where}: ${secret}`));

  let redis: Awaited<ReturnType<typeof startRedisWithPassword>>;
  let upstream: Awaited<ReturnType<typeof startServer>>;
  let proxy: TestProxy;
  let serve: GleanerProcess;
  const others: GleanerProcess[] = [];
  let env: Record<string, string>;
  let key: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-secrets-'));
    redis = await startRedisWithPassword(secrets.storePassword);
    // A hostile upstream: every error it answers quotes the request's credentials back (Authorization,
    // Cookie, the full URL with its query): an error message built from its reply would carry them.
    const clip = fs.readFileSync(generateMedia().make('clip.mp3', 3));
    upstream = await startServer((req) => {
      if (req.url === '/clip.mp3') return { status: 200, type: 'audio/mpeg', body: clip };
      if (req.url === '/page') return { status: 200, type: 'text/html', body: '<html><head><title>A page</title></head><body><h1>Hello</h1><p>Plain text of a page.</p></body></html>' };
      const echo = `${req.method} ${req.url} authorization=${req.headers.authorization ?? ''} cookie=${req.headers.cookie ?? ''} proxy-authorization=${req.headers['proxy-authorization'] ?? ''}`;
      return { status: 401, body: JSON.stringify({ error: { message: `refused: ${echo}` } }) };
    });
    proxy = await startTestProxy();
    const dead = await freePort();
    const cookies = writeCookiesFile(dataDir, [
      { domain: 'youtube.com', name: 'SID', value: secrets.cookieSid },
      { domain: 'youtube.com', name: 'SAPISID', value: secrets.cookieSapisid },
      { domain: 'instagram.com', name: 'sessionid', value: secrets.cookieInstagram },
      { domain: 'x.com', name: 'auth_token', value: secrets.cookieXAuth },
      { domain: 'x.com', name: 'ct0', value: secrets.cookieXCt0 },
      { domain: 'tiktok.com', name: 'sessionid', value: secrets.cookieTiktok },
      { domain: 'facebook.com', name: 'xs', value: secrets.cookieFacebook },
    ]);
    // An operator's profile file with a login header of its own (left out of `gleaner profile --json`, redacted everywhere).
    const profileFile = path.join(dataDir, 'profile.json');
    fs.writeFileSync(profileFile, JSON.stringify({ tiktok: { pageHeaders: { Cookie: `sid_tt=${secrets.profileCookie}` } } }));
    const proxyPort = new URL(proxy.url).port;
    env = {
      GLEANER_DATA_DIR: dataDir,
      GLEANER_STORE_URL: `redis://:${secrets.storePassword}@127.0.0.1:${redis.port}`,
      GLEANER_ALLOW_PRIVATE_URLS: 'true',
      GLEANER_UPSTREAM_OVERRIDES: ['youtube.com', 'instagram.com', 'tiktok.com', 'x.com', 'twitter.com', 'facebook.com'].map((host) => `${host}=${upstream.origin}`).join(','),
      GLEANER_PROXY_URL: `http://proxyuser:${secrets.proxyPassword}@127.0.0.1:${proxyPort}`,
      GLEANER_PROXY_URL_YOUTUBE: `http://${secrets.youtubeProxyUser}:${secrets.youtubeProxyPassword}@127.0.0.1:${dead}`,
      GLEANER_PROXY_URL_TIKTOK: `http://ttuser:${secrets.tiktokProxyPassword}@127.0.0.1:${dead}`,
      // Instagram's pool: a live proxy (credentials in its URL) after a dead one; X's and Facebook's dead.
      GLEANER_PROXY_URL_INSTAGRAM: `http://iguser:${secrets.instagramProxyPassword}@127.0.0.1:${dead},http://${secrets.instagramProxyUser}:${secrets.instagramProxyPassword}@127.0.0.1:${proxyPort}`,
      GLEANER_PROXY_URL_X: `socks5://xuser:${secrets.xProxyPassword}@127.0.0.1:${dead}`,
      GLEANER_PROXY_URL_FACEBOOK: `http://fbuser:${secrets.facebookProxyPassword}@127.0.0.1:${dead}`,
      // A remote browser that cannot be reached, with a password and a token (as browser fleets take them).
      GLEANER_BROWSER_WS_URL: `ws://wsuser:${secrets.browserWsPassword}@127.0.0.1:${dead}/chromium?token=${secrets.browserWsToken}`,
      GLEANER_X_BEARER_TOKEN: secrets.xBearer,
      GLEANER_PLATFORM_PROFILE: profileFile,
      GLEANER_STT_URL: `http://sttuser:${secrets.sttUrlPassword}@${upstream.origin.slice('http://'.length)}/v1?api_key=${secrets.sttUrlToken}`,
      GLEANER_STT_API_KEY: secrets.sttKey,
      GLEANER_LLM_URL: `http://llmuser:${secrets.llmUrlPassword}@${upstream.origin.slice('http://'.length)}/v1?token=${secrets.llmUrlToken}`,
      GLEANER_LLM_API_KEY: secrets.llmKey,
      GLEANER_YOUTUBE_POT_PROVIDER_URL: `http://potuser:${secrets.potPassword}@127.0.0.1:${dead}/?token=${secrets.potToken}`,
      GLEANER_YOUTUBE_CLIENTS: 'WEB',
      GLEANER_COOKIES_FILE: cookies,
      GLEANER_WEBHOOK_SECRET: secrets.webhookSecret,
      // The public address and an identity provider's key set may carry credentials in their URLs too.
      GLEANER_PUBLIC_URL: `http://pubuser:${secrets.publicUrlPassword}@127.0.0.1`,
      GLEANER_OAUTH_JWKS_URL: `http://jwksuser:${secrets.jwksPassword}@127.0.0.1:${dead}/keys`,
      GLEANER_HTTP_TIMEOUT_MS: '10000',
      GLEANER_LOG_LEVEL: 'debug',
    };
    key = await createKeyWithCli(env, 'Enterprise', 1000);
    // The operator's key, as stdio `gleaner mcp` takes it: in every process's environment, a secret like the others.
    env.GLEANER_API_KEY = key;
    planted.push(key);
    serve = await startGleaner(['serve', '--port', '0'], env);
  }, 300_000);

  afterAll(async () => {
    for (const proc of [serve, ...others]) await proc?.stop('SIGKILL');
    await redis?.stop();
    await upstream?.close();
    await proxy?.close();
  });

  const rest = async (method: string, pathAndQuery: string, options: { apiKey?: string; body?: unknown } = {}) => {
    const response = await fetch(`${serve.url}${pathAndQuery}`, {
      method,
      headers: { ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}), ...(options.body ? { 'content-type': 'application/json' } : {}) },
      body: options.body ? JSON.stringify(options.body) : undefined,
    });
    const text = await response.text();
    look(`${method} ${pathAndQuery} -> ${response.status}`, `${[...response.headers].join('\n')}\n${text}`);
    return { status: response.status, text };
  };

  it("every credential-bearing variable of config.ts is planted here, and this process's redaction takes each planted value out", async () => {
    // A variable added to config.ts whose name says it may hold a credential (or a file of them) fails here until planted.
    const credentialBearing = CONFIG_VARIABLES.filter((name) => /_(URL|KEY|TOKEN|SECRET|COOKIES?|PASSWORD|PROFILE)(_|$)/.test(name));
    expect(credentialBearing.length).toBeGreaterThanOrEqual(18);
    const fileVariables = new Set(['GLEANER_COOKIES_FILE', 'GLEANER_PLATFORM_PROFILE']);
    for (const name of credentialBearing) {
      expect(env[name], `${name} is not planted`).toBeDefined();
      const value = fileVariables.has(name) ? fs.readFileSync(env[name], 'utf8') : env[name];
      expect(planted.filter((secret) => value.includes(secret)), `${name} holds no planted secret`).not.toEqual([]);
    }
    // What start-up remembers (configuration and profile; the cookie values are checked end to end) takes out every planted value.
    const config = loadConfig(env);
    rememberConfiguredSecrets(config);
    rememberSecrets(profileSecrets(config.platformProfile));
    for (const name of credentialBearing.filter((n) => !fileVariables.has(n))) {
      const shown = redactText(`${name}=${env[name]}`);
      expect(planted.filter((secret) => shown.includes(secret)), `${name} after redaction: ${shown}`).toEqual([]);
    }
    expect(profileSecrets(config.platformProfile)).toEqual(expect.arrayContaining([secrets.xBearer, `sid_tt=${secrets.profileCookie}`]));
  });

  it('REST successes and failures (upstream failures through dead proxies, a refusing upstream), /healthz and /metrics carry none', async () => {
    expect((await rest('GET', '/v1/me', { apiKey: key })).status).toBe(200);
    expect((await rest('GET', '/healthz')).status).toBe(200);
    const scraped = await rest('GET', `/v1/web/scrape?url=${encodeURIComponent(`${upstream.origin}/page`)}`, { apiKey: key });
    expect(scraped.status, scraped.text).toBe(200);
    expect(scraped.text).toContain('Plain text of a page');
    // The refusing upstream answers 401 with the request quoted back.
    expect((await rest('GET', `/v1/web/scrape?url=${encodeURIComponent(`${upstream.origin}/private?token=abc`)}`, { apiKey: key })).status).toBeGreaterThanOrEqual(400);
    // YouTube goes through its proxy pool, dead: the failure names no proxy credential.
    const youtube = await rest('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(youtube.status).toBeGreaterThanOrEqual(500);
    expect((await rest('GET', `/v1/metadata?url=${encodeURIComponent('https://www.youtube.com/watch?v=kX3nB4PpJko')}`, { apiKey: key })).status).toBeGreaterThanOrEqual(500);
    expect((await rest('GET', `/v1/transcript?url=${encodeURIComponent('https://www.tiktok.com/@someone/video/6748451240264420610')}`, { apiKey: key })).status).toBeGreaterThanOrEqual(400);
    // Instagram's requests carry the operator's cookie to the (overridden) platform, which quotes it back in a refusal.
    expect((await rest('GET', `/v1/transcript?url=${encodeURIComponent('https://www.instagram.com/reel/Chunk8-jurw/')}`, { apiKey: key })).status).toBeGreaterThanOrEqual(400);
    expect((await rest('GET', '/v1/me', { apiKey: 'gl_made_up_key' })).status).toBe(401);
    // X (its bearer token and cookies) through its dead SOCKS proxy; Facebook through its dead proxy.
    expect((await rest('GET', `/v1/metadata?url=${encodeURIComponent('https://x.com/someone/status/20')}`, { apiKey: key })).status).toBeGreaterThanOrEqual(400);
    expect((await rest('GET', `/v1/transcript?url=${encodeURIComponent('https://x.com/someone/status/21')}`, { apiKey: key })).status).toBeGreaterThanOrEqual(400);
    expect((await rest('GET', `/v1/transcript?url=${encodeURIComponent('https://www.facebook.com/watch?v=1234567890')}`, { apiKey: key })).status).toBeGreaterThanOrEqual(400);
    expect((await rest('GET', `/v1/metadata?url=${encodeURIComponent('https://www.facebook.com/Nintendo/videos/387081299304444/')}`, { apiKey: key })).status).toBeGreaterThanOrEqual(400);
    // A page that must be rendered, by the remote browser that cannot be reached.
    const rendered = await rest('GET', `/v1/web/scrape?url=${encodeURIComponent(`${upstream.origin}/page`)}&render=always`, { apiKey: key });
    expect(rendered.status, rendered.text).toBeGreaterThanOrEqual(400);
    expect((await rest('GET', '/metrics')).status).toBe(200);
    // A crawl whose webhook (userinfo and a token in its query) is refused: the failed delivery is logged.
    const hook = `http://hookuser:${secrets.webhookPassword}@${upstream.origin.slice('http://'.length)}/hook?token=${secrets.webhookToken}`;
    const crawl = await rest('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${upstream.origin}/page`, maxPages: 1, webhook: hook } });
    expect(crawl.status, crawl.text).toBe(202);
    await serve.waitForLog(/webhook receiver refused the delivery/);
    expect((await rest('GET', `/v1/web/crawl/${JSON.parse(crawl.text).jobId}`, { apiKey: key })).status).toBe(200);
    // The speech-to-text endpoint refuses, quoting the key it was sent: the message quotes the refusal.
    const generated = await rest('GET', `/v1/transcript?url=${encodeURIComponent(`${upstream.origin}/clip.mp3`)}&mode=auto`, { apiKey: key });
    expect(generated.status, generated.text).toBe(502);
    expect(generated.text).toContain('speech-to-text');
    // The quoted refusal is there, its key taken out.
    expect(generated.text).toContain('Bearer ***');
    expect(leaks()).toEqual([]);
  }, 240_000);

  it('MCP tool calls, success and failure, carry none', async () => {
    const client = await connectMcp(serve.url!, key);
    try {
      const account = await client.callTool({ name: 'account', arguments: {} });
      expect(account.isError).toBeFalsy();
      look('mcp account', JSON.stringify(account));
      const failed = await client.callTool({ name: 'youtube_transcript', arguments: { videoId: 'kX3nB4PpJko' } });
      expect(failed.isError).toBe(true);
      look('mcp youtube_transcript', JSON.stringify(failed));
      const refused = await client.callTool({ name: 'web_scrape', arguments: { url: `${upstream.origin}/denied` } });
      look('mcp web_scrape', JSON.stringify(refused));
      for (const [name, args] of [
        ['metadata', { url: 'https://x.com/someone/status/22' }],
        ['transcript', { url: 'https://www.instagram.com/reel/Chunk8-jurw/' }],
        ['transcript', { url: 'https://www.facebook.com/watch?v=1234567890' }],
        ['transcript', { url: 'https://www.tiktok.com/@someone/video/6748451240264420610' }],
        ['web_scrape', { url: `${upstream.origin}/page`, render: 'always' }],
      ] as const) {
        const failed = await client.callTool({ name, arguments: args });
        look(`mcp ${name}`, JSON.stringify(failed));
      }
    } finally {
      await client.close();
    }
    expect(leaks()).toEqual([]);
  }, 240_000);

  it('doctor --json (the STT and LLM endpoints refuse, quoting the key back; platforms fail through dead proxies) carries none', async () => {
    const result = await run(process.execPath, [GLEANER_MAIN, 'doctor', '--json', 'https://www.youtube.com/watch?v=kX3nB4PpJko'], {
      env: { ...process.env, ...env },
    }).catch((error: { stdout: string; stderr: string }) => error);
    look('doctor stdout', result.stdout);
    look('doctor stderr', result.stderr);
    const report = JSON.parse(result.stdout) as { checks: Array<{ name: string; status: string; detail: string }> };
    expect(report.checks.find((check) => check.name === 'speech-to-text')?.status).toBe('failed');
    const text = await run(process.execPath, [GLEANER_MAIN, 'doctor', 'https://x.com/someone/status/20', `${upstream.origin}/page`], {
      env: { ...process.env, ...env },
    }).catch((error: { stdout: string; stderr: string }) => error);
    expect(text.stdout).toContain('speech-to-text');
    look('doctor (text) stdout', text.stdout);
    look('doctor (text) stderr', text.stderr);
    expect(leaks()).toEqual([]);
  }, 240_000);

  it('`gleaner profile` and `gleaner profile --json` carry none (the bearer token and the Cookie header left out)', async () => {
    for (const args of [['profile'], ['profile', '--json']]) {
      const result = await run(process.execPath, [GLEANER_MAIN, ...args], { env: { ...process.env, ...env } });
      look(`${args.join(' ')} stdout`, result.stdout);
      look(`${args.join(' ')} stderr`, result.stderr);
    }
    expect(seen.find(({ where }) => where === 'profile --json stderr')?.text).toContain('x.bearerToken');
    expect(leaks()).toEqual([]);
  }, 120_000);

  it('the start-up lines of worker and mcp name the store without its password', async () => {
    const worker = await startGleaner(['worker'], env);
    others.push(worker);
    expect(worker.log()).toContain(`redis://***@127.0.0.1:${redis.port}`);
    const client = new Client({ name: 'secrets-test', version: '1' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [GLEANER_MAIN, 'mcp'], env: { ...(process.env as Record<string, string>), ...env, GLEANER_API_KEY: key }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
    const account = await client.callTool({ name: 'account', arguments: {} });
    expect(account.isError).toBeFalsy();
    look('stdio mcp account', JSON.stringify(account));
    for (const [name, args] of [
      ['youtube_transcript', { videoId: 'kX3nB4PpJko' }],
      ['metadata', { url: 'https://x.com/someone/status/23' }],
      ['transcript', { url: `${upstream.origin}/clip.mp3`, mode: 'auto' }],
      ['web_scrape', { url: `${upstream.origin}/page`, render: 'always' }],
    ] as const) {
      look(`stdio mcp ${name}`, JSON.stringify(await client.callTool({ name, arguments: args })));
    }
    await client.close();
    look('mcp stderr', stderr);
    expect(stderr).toContain('***@127.0.0.1');
    // GLEANER_API_KEY that no store knows: the refusal names the variable, never its value.
    const madeUp = new Client({ name: 'secrets-test-made-up', version: '1' });
    const madeUpTransport = new StdioClientTransport({ command: process.execPath, args: [GLEANER_MAIN, 'mcp'], env: { ...(process.env as Record<string, string>), ...env, GLEANER_API_KEY: secrets.stdioMadeUpKey }, stderr: 'pipe' });
    let madeUpStderr = '';
    madeUpTransport.stderr!.on('data', (chunk: Buffer) => (madeUpStderr += chunk.toString()));
    await madeUp.connect(madeUpTransport);
    const refused = await madeUp.callTool({ name: 'account', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused)).toContain('GLEANER_API_KEY');
    look('stdio mcp made-up key account', JSON.stringify(refused));
    await madeUp.close();
    look('mcp (made-up key) stderr', madeUpStderr);
    await worker.stop();
    look('worker stderr', worker.log());
    expect(leaks()).toEqual([]);
  }, 240_000);

  it('with Redis stopped: /healthz, REST and /mcp with a made-up key answer STORE_UNAVAILABLE without the password (finding 1)', async () => {
    await redis.stop();
    // /healthz answers from a probe at most a second old: the outage shows within that.
    let health = await rest('GET', '/healthz');
    for (let tries = 0; health.status === 200 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      health = await rest('GET', '/healthz');
    }
    expect(health.status).toBe(503);
    expect(health.text).toContain(`redis://***@127.0.0.1:${redis.port}`);
    const me = await rest('GET', '/v1/me', { apiKey: key });
    expect(me.status).toBe(503);
    expect(JSON.parse(me.text).error.code).toBe('STORE_UNAVAILABLE');
    expect(me.text).toContain(`redis://***@127.0.0.1:${redis.port}`);
    const mcp = await fetch(`${serve.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': 'gl_made_up' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    const mcpText = await mcp.text();
    look(`/mcp made-up key -> ${mcp.status}`, mcpText);
    expect(mcpText).toContain('STORE_UNAVAILABLE');
    // Every line the server logged, start-up to outage.
    look('serve stderr', serve.log());
    expect(serve.log()).toContain(`redis://***@127.0.0.1:${redis.port}`);
    expect(leaks()).toEqual([]);
  }, 120_000);
});

describe('/healthz under concurrent probes (finding 5)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('64 probes at once on a healthy store all answer 200, twice over', async () => {
    for (let round = 0; round < 2; round++) {
      const statuses = await Promise.all(Array.from({ length: 64 }, async () => (await fetch(`${server.baseUrl}/healthz`)).status));
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    }
  });

  it('a store that stops answering is still reported (after at most the probe interval)', async () => {
    const broken = await startTestServer();
    try {
      expect((await broken.request('GET', '/healthz')).status).toBe(200);
      await broken.app.services.store.close();
      let status = 200;
      while (status === 200) {
        status = (await broken.request('GET', '/healthz')).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(status).toBe(503);
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

describe('charges survive kill -9 of the server (finding 8)', { timeout: 400_000 }, () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('every 1-credit reply received before the kill stays charged after the restart, none more', async () => {
    const server = await startTestServer({ operations: [...OPERATIONS, chargeOperation] });
    try {
      for (let round = 0; round < 3; round++) {
        const doomed = await spawnChargedServer({ GLEANER_DATA_DIR: server.dataDir });
        children.push(doomed.child);
        const { account, apiKey } = await server.app.services.accounts.create({ plan: 'Enterprise', monthlyCredits: 10_000 });
        let replies = 0;
        let cut = 0;
        const killAt = 40 + round * 30;
        const calls = Array.from({ length: 200 }, async () => {
          try {
            const response = await fetch(`${doomed.url}/v1/test/charge`, { headers: { 'x-api-key': apiKey } });
            if (response.status !== 200) return;
            replies++;
            // Killed the moment the killAt-th reply arrives: others are being charged right then.
            if (replies === killAt) doomed.child.kill('SIGKILL');
            await response.arrayBuffer().catch(() => undefined);
          } catch {
            // Cut off by the kill: not a reply.
            cut++;
          }
        });
        await Promise.all(calls);
        if (doomed.child.exitCode === null && doomed.child.signalCode === null) await once(doomed.child, 'exit');
        // The restart: the sweep returns what the dead process held for calls it never answered.
        await server.app.services.accounts.sweep();
        expect(replies).toBeGreaterThanOrEqual(killAt);
        // Every reply the client got is charged. A call the kill cut off between its commit and its
        // reply may stay charged too (no server can make that window empty), never more than those.
        const { used } = await server.app.services.accounts.balance(account);
        expect(used, `round ${round}: ${replies} replies`).toBeGreaterThanOrEqual(replies);
        expect(used, `round ${round}: ${replies} replies`).toBeLessThanOrEqual(replies + cut);
        expect(await server.app.services.store.ledger.reservations()).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });
});

describe('PO tokens from the provider are bounded (finding 10)', () => {
  let provider: Awaited<ReturnType<typeof startServer>>;
  let asked = 0;
  let answer: (binding: string) => { poToken: string; expiresAt?: string };
  const client = new HttpClient({ overrides: [], allowPrivate: true });
  beforeAll(async () => {
    provider = await startServer((_req, body) => {
      asked++;
      const binding = (JSON.parse(body) as { content_binding: string }).content_binding;
      return { status: 200, body: JSON.stringify({ contentBinding: binding, ...answer(binding) }) };
    });
  });
  afterAll(async () => {
    await provider.close();
    await client.close();
  });

  it('an 8 MB token is refused (UPSTREAM_ERROR), not cached: the next good token is used', async () => {
    answer = () => ({ poToken: 'A'.repeat(8 * 1024 * 1024), expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    await expect(fetchPoToken(client, provider.origin, 'video8mb0001')).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
    // Just over the cap, in a small reply: refused too.
    answer = () => ({ poToken: 'B'.repeat(PO_TOKEN_MAX_CHARS + 1) });
    await expect(fetchPoToken(client, provider.origin, 'video8mb0001')).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
    answer = (binding) => ({ poToken: `good-${binding}` });
    expect(await fetchPoToken(client, provider.origin, 'video8mb0001')).toBe('good-video8mb0001');
  });

  it('an expiresAt centuries ahead is kept at most the longest lifetime: the provider is asked again after it', async () => {
    answer = (binding) => ({ poToken: `tok-${asked}-${binding}`, expiresAt: '2999-01-01T00:00:00Z' });
    const first = await fetchPoToken(client, provider.origin, 'videoLong001');
    expect(await fetchPoToken(client, provider.origin, 'videoLong001')).toBe(first);
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now + PO_TOKEN_MAX_LIFETIME_MS + 1_000);
    try {
      expect(await fetchPoToken(client, provider.origin, 'videoLong001')).not.toBe(first);
    } finally {
      clock.mockRestore();
    }
    expect(poTokenExpiry('2999-01-01T00:00:00Z', now)).toBe(now + PO_TOKEN_MAX_LIFETIME_MS);
    expect(poTokenExpiry(new Date(now + 60_000).toISOString(), now)).toBe(now + 60_000);
    expect(poTokenExpiry('1999-01-01T00:00:00Z', now)).toBeGreaterThan(now);
  });
});
