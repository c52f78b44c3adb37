/**
 * What the console refuses, request by request (no browser needed): forms without the session's
 * token or from another origin, a wrong or revoked key at sign-in (one message for both), and the
 * headers every page carries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { consoleSession, formToken, postSignIn } from '../support/console-session.js';
import { loadConfig } from '../../src/config.js';
import { runKeysCommand } from '../../src/cli/keys.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const form = 'application/x-www-form-urlencoded';

async function signIn(key: string): Promise<{ cookie: string; csrf: string }> {
  const cookie = await consoleSession(server.baseUrl, key);
  return { cookie, csrf: await formToken(server.baseUrl, cookie) };
}

async function signInAttempt(key: string): Promise<{ status: number; message: string; setsSession: boolean }> {
  const posted = await postSignIn(server.baseUrl, key);
  const body = await posted.text();
  return {
    status: posted.status,
    message: /id="sign-in-error">([^<]*)</.exec(body)?.[1] ?? '',
    setsSession: posted.headers.getSetCookie().some((c) => c.startsWith('gleaner_console=') && !c.startsWith('gleaner_console=;')),
  };
}

const keysCount = async () => (await server.app.services.accounts.list()).length;

describe('console refusals', () => {
  it('a form post to the console without the right token, or from another origin, changes nothing', async () => {
    const { apiKey } = await server.app.services.accounts.create({ plan: 'Enterprise', name: 'admin', role: 'owner' });
    const { cookie, csrf } = await signIn(apiKey);
    const before = await keysCount();
    const post = (headers: Record<string, string>, fields: Record<string, string>) =>
      fetch(`${server.baseUrl}/console/keys`, { method: 'POST', redirect: 'manual', headers: { 'content-type': form, cookie, ...headers }, body: new URLSearchParams({ plan: 'Pro', ...fields }) });

    // No token, a wrong one, a token of another session.
    expect((await post({ origin: server.baseUrl }, {})).status).toBe(403);
    expect((await post({ origin: server.baseUrl }, { csrf: 'x'.repeat(43) })).status).toBe(403);
    const other = await signIn(apiKey);
    expect((await post({ origin: server.baseUrl }, { csrf: other.csrf })).status).toBe(403);
    // The right token from a foreign origin: another port of the same host (which the loopback Host check lets
    // through, the console does not), another site, no Origin nor Referer at all, a foreign Referer.
    const port = new URL(server.baseUrl).port;
    const sameHostOtherPort = await post({ origin: `http://127.0.0.1:${Number(port) === 1 ? 2 : 1}` }, { csrf });
    expect(sameHostOtherPort.status).toBe(403);
    expect(await sameHostOtherPort.text()).toContain('cross-site request refused');
    expect((await post({ origin: 'https://evil.example' }, { csrf })).status).toBe(403);
    expect((await post({}, { csrf })).status).toBe(403);
    expect((await post({ referer: 'http://127.0.0.1:1/page' }, { csrf })).status).toBe(403);
    expect(await keysCount()).toBe(before);

    // The same post with the token and from the console's origin is done (so the refusals above were the checks').
    const done = await post({ origin: server.baseUrl }, { csrf });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('shown this once');
    expect(await keysCount()).toBe(before + 1);
    // A browser that sends no Origin but a Referer of the console is accepted too.
    expect((await post({ referer: `${server.baseUrl}/console/keys` }, { csrf })).status).toBe(200);

    // Sign-out is a form like any other: a cross-site one does not end the session.
    const signOut = await fetch(`${server.baseUrl}/console/sign-out`, { method: 'POST', redirect: 'manual', headers: { 'content-type': form, cookie, origin: 'http://127.0.0.1:1' }, body: new URLSearchParams({ csrf }) });
    expect(signOut.status).toBe(403);
    expect((await fetch(`${server.baseUrl}/console`, { headers: { cookie }, redirect: 'manual' })).status).toBe(200);
  });

  it('a sign-in form posted from elsewhere (no form cookie, or a foreign origin) is refused', async () => {
    const key = await server.createKey('Free');
    const withoutCookie = await fetch(`${server.baseUrl}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: server.baseUrl, 'content-type': form },
      body: new URLSearchParams({ csrf: 'whatever', key }),
    });
    expect(withoutCookie.status).toBe(403);
    expect(withoutCookie.headers.getSetCookie().some((c) => c.startsWith('gleaner_console='))).toBe(false);
    const foreign = await fetch(`${server.baseUrl}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: 'http://127.0.0.1:1', 'content-type': form },
      body: new URLSearchParams({ key }),
    });
    expect(foreign.status).toBe(403);
  });

  it('a wrong key and a revoked key get the same clear message and no session', async () => {
    const unknown = await signInAttempt('gl_not-a-key-of-this-server-at-all-000000');
    const { account, apiKey } = await server.app.services.accounts.create({ plan: 'Pro' });
    await server.app.services.accounts.revoke(account.id);
    const revoked = await signInAttempt(apiKey);
    const empty = await signInAttempt('');
    expect(unknown).toEqual({ status: 401, message: expect.stringContaining('That key is not valid'), setsSession: false });
    expect(revoked).toEqual(unknown);
    expect(empty.status).toBe(400);
    expect(empty.setsSession).toBe(false);
  });

  it("a revoked key's session ends at once", async () => {
    const { account, apiKey } = await server.app.services.accounts.create({ plan: 'Pro' });
    const { cookie } = await signIn(apiKey);
    expect((await fetch(`${server.baseUrl}/console`, { headers: { cookie }, redirect: 'manual' })).status).toBe(200);
    await server.app.services.accounts.revoke(account.id);
    const after = await fetch(`${server.baseUrl}/console`, { headers: { cookie }, redirect: 'manual' });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/console/sign-in');
  });

  it('every page carries the policy: no script, style from the stylesheet only, no framing, nothing cached', async () => {
    const { apiKey } = await server.app.services.accounts.create({ plan: 'Pro' });
    const { cookie } = await signIn(apiKey);
    for (const path of ['/console/sign-in', '/console', '/console/usage', '/console/jobs', '/console/jobs/nope', '/console/keys', '/console/oauth-clients']) {
      const res = await fetch(`${server.baseUrl}${path}`, { headers: { cookie }, redirect: 'manual' });
      const policy = res.headers.get('content-security-policy') ?? '';
      expect(policy, path).toContain("default-src 'none'");
      expect(policy, path).toContain("style-src 'self'");
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(policy, path).not.toContain('unsafe-inline');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('cache-control'), path).toBe('no-store');
      const body = await res.text();
      expect(body, path).not.toMatch(/<script|style=/i);
    }
    const css = await fetch(`${server.baseUrl}/console/console.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    // The member's keys page does not exist; a page the console has not is 404 too.
    expect((await fetch(`${server.baseUrl}/console/keys`, { headers: { cookie } })).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/console/no-such-page`, { headers: { cookie } })).status).toBe(404);
    // The OAuth clients page exists whenever Gleaner is its own authorization server (the default).
    expect((await fetch(`${server.baseUrl}/console/oauth-clients`, { headers: { cookie } })).status).toBe(200);
  });

  it('a session started on one server is accepted by another on the same store, and its sign-out ends it on both', async () => {
    const other = await startTestServer({ dataDir: server.dataDir });
    try {
      const { apiKey } = await server.app.services.accounts.create({ plan: 'Pro' });
      const { cookie } = await signIn(apiKey);
      const page = await fetch(`${other.baseUrl}/console`, { headers: { cookie }, redirect: 'manual' });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('id="plan">Pro<');
      // Signed out on the second server: the first refuses the cookie too.
      const overview = await (await fetch(`${other.baseUrl}/console`, { headers: { cookie } })).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(overview)![1];
      const out = await fetch(`${other.baseUrl}/console/sign-out`, { method: 'POST', redirect: 'manual', headers: { cookie, origin: other.baseUrl, 'content-type': form }, body: new URLSearchParams({ csrf }) });
      expect(out.status).toBe(303);
      expect((await fetch(`${server.baseUrl}/console`, { headers: { cookie }, redirect: 'manual' })).status).toBe(303);
    } finally {
      await other.close();
    }
  });

  it('gleaner keys create --owner makes a key that manages keys in the console; without it, a member', async () => {
    const created: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const config = loadConfig({ GLEANER_DATA_DIR: server.dataDir, GLEANER_LOG_LEVEL: 'silent' });
    process.stdout.write = ((chunk: string) => (created.push(String(chunk).trim()), true)) as typeof process.stdout.write;
    try {
      expect(await runKeysCommand(config, ['create', '--plan', 'Pro', '--owner'])).toBe(0);
      expect(await runKeysCommand(config, ['create', '--plan', 'Pro'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    const [owner, member] = created;
    expect((await fetch(`${server.baseUrl}/console/keys`, { headers: { cookie: await consoleSession(server.baseUrl, owner) } })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/console/keys`, { headers: { cookie: await consoleSession(server.baseUrl, member) } })).status).toBe(404);
  });

  it('a session cookie is Secure when the console is reached over https (a TLS proxy in front)', async () => {
    const blank = await fetch(`${server.baseUrl}/console/sign-in`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(blank.headers.getSetCookie()[0]).toMatch(/; Secure$/);
    const plain = await fetch(`${server.baseUrl}/console/sign-in`);
    expect(plain.headers.getSetCookie()[0]).not.toContain('Secure');
  });
});

describe('key guessing at the console sign-in (issue 39)', () => {
  /** A sign-in post as if from `address` (the test's loopback peer is a proxy on this machine that says whom it forwards). */
  async function attemptFrom(address: string, key: string): Promise<Response> {
    const blank = await fetch(`${server.baseUrl}/console/sign-in`);
    const formCookie = blank.headers.getSetCookie()[0].split(';')[0];
    const token = /name="csrf" value="([^"]+)"/.exec(await blank.text())![1];
    return fetch(`${server.baseUrl}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: formCookie, origin: server.baseUrl, 'content-type': form, 'x-forwarded-for': address },
      body: new URLSearchParams({ csrf: token, key }),
    });
  }

  it('ten wrong keys from one address, then that address is refused with 429 (even its right key) while another signs in', async () => {
    const { apiKey } = await server.app.services.accounts.create({ plan: 'Pro', name: 'guessed' });
    for (let i = 0; i < 10; i++) expect((await attemptFrom('203.0.113.7', `gl_guess-${i}-${'0'.repeat(30)}`)).status).toBe(401);
    const refused = await attemptFrom('203.0.113.7', apiKey);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toMatch(/Too many attempts with a key that is not valid from this address/);
    // Another address (and another host of the same IPv6 /64 is the same address).
    expect((await attemptFrom('198.51.100.9', apiKey)).status).toBe(303);
    for (let i = 0; i < 10; i++) await attemptFrom(`2001:db8:1:2::${i + 1}`, 'gl_wrong');
    expect((await attemptFrom('2001:db8:1:2:ffff::1', apiKey)).status).toBe(429);
    expect((await attemptFrom('2001:db8:1:3::1', apiKey)).status).toBe(303);
  });
});
