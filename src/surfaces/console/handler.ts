/**
 * The web console at /console: server-rendered pages for the person who holds a key (plan, credits,
 * rate, usage, jobs) and, for an owner key, every key of the store. It calls the same code as the
 * API: Accounts for keys and balances, Jobs for the job records, the gate for a cancel (the very
 * operation DELETE /v1/jobs/{id} runs), the gate's usage log for usage. Works without JavaScript.
 *
 * Every response carries a strict Content-Security-Policy; every POST must come from this origin and
 * carry the session's form token; another key's job is "not found", exactly as on the API.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app.js';
import { GleanerError, toGleanerError } from '../../errors.js';
import { publicJob } from '../../jobs/jobs.js';
import { parsePlanName, PLAN_NAMES } from '../../accounts/plans.js';
import { isOwner } from '../../accounts/roles.js';
import { note } from '../access.js';
import { page, html, type Html } from './html.js';
import { STYLESHEET, STYLESHEET_ETAG } from './style.js';
import { ConsoleSessions, derivedToken, newSecret, sameToken, SIGN_IN_FORM_MS, type Session } from './sessions.js';
import { checkSameOrigin, clearCookie, cookieHeader, readCookie, readForm, securityHeaders, SESSION_COOKIE, SIGN_IN_COOKIE } from './guard.js';
import { overviewBody, parseUsageQuery, usageBody } from './pages-account.js';
import { jobBody, jobsBody, type ResultText } from './pages-jobs.js';
import { replyText } from '../text/shapes.js';
import { keysBody, type KeyRow } from './pages-keys.js';
import { signInBody } from './pages-sign-in.js';
import type { OAuthClientsSource } from './oauth-slot.js';
import { oauthClientsBody } from './pages-oauth.js';
import { clientAddress } from '../oauth/http.js';

export interface ConsoleOptions {
  bodyDeadlineMs: number;
  /** The OAuth server's approvals; without it the console has no OAuth-clients section (oauth-slot.ts). */
  oauthClients?: OAuthClientsSource;
}

interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
}

interface Signed extends Request {
  session: Session;
}

const JOB_ID = '([^/]{1,100})';
const ACCOUNT_ID = '([A-Za-z0-9_-]{1,64})';

export function isConsolePath(pathname: string): boolean {
  return pathname === '/console' || pathname.startsWith('/console/');
}

export function createConsoleHandler(app: App, options: ConsoleOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { accounts, jobs, store } = app.services;
  const resultText: ResultText = (job) => {
    const operation = app.gate.operation(job.operation);
    try {
      return operation && replyText(operation, publicJob(job), (name) => app.gate.operation(name));
    } catch (error) {
      // A result its shape did not expect is shown as its JSON rather than failing the page.
      app.log.warn({ err: error, operation: job.operation }, 'could not read a job result as text');
      return undefined;
    }
  };
  const sessions = new ConsoleSessions(store, accounts);
  const oauth = options.oauthClients;

  const layout = (s: Signed, title: string, body: Html, current: string) =>
    page({
      title,
      body,
      nav: { current, keyLabel: `${s.session.account.keyPrefix}… · ${s.session.account.plan}`, owner: isOwner(s.session.account), oauthClients: Boolean(oauth), csrf: s.session.csrf },
    });

  /** GET pages of a signed-in key; path pattern -> renderer. */
  const pages: Array<[RegExp, string, (s: Signed, match: RegExpExecArray) => Promise<string>]> = [
    [
      /^\/console\/?$/,
      '/console',
      async (s) => {
        const account = s.session.account;
        const [balance, rate] = await Promise.all([accounts.balance(account), app.gate.rateStatus(account)]);
        return layout(s, 'Overview', overviewBody(account, balance, rate, isOwner(account)), '/console');
      },
    ],
    [
      /^\/console\/usage$/,
      '/console/usage',
      async (s) => {
        const { metric, period } = parseUsageQuery(s.url.searchParams);
        const record = await accounts.usage.read(s.session.account.id);
        return layout(s, 'Usage', usageBody(record, new Date(), metric, period), '/console/usage');
      },
    ],
    [
      /^\/console\/jobs$/,
      '/console/jobs',
      async (s) => {
        const cursorText = s.url.searchParams.get('cursor');
        const cursor = cursorText !== null && /^\d{1,6}$/.test(cursorText) ? Number(cursorText) : undefined;
        const list = await jobs.list(s.session.account.id, { limit: 20, cursor });
        return layout(s, 'Jobs', jobsBody(list.jobs, list.nextCursor, s.session.csrf), '/console/jobs');
      },
    ],
    [
      new RegExp(`^/console/jobs/${JOB_ID}$`),
      '/console/jobs/{jobId}',
      async (s, match) => {
        // Jobs.get answers NOT_FOUND for another key's job, as GET /v1/jobs/{id} does.
        const job = await jobs.get(decodeSegment(match[1]), s.session.account.id);
        const notice = s.url.searchParams.get('done') === 'cancel' ? 'Cancel requested: the job stops at its next page or chunk; the part done is charged, the rest refunded.' : undefined;
        return layout(s, 'Job', jobBody(job, s.session.csrf, resultText, notice), '/console/jobs');
      },
    ],
    [
      /^\/console\/keys$/,
      '/console/keys',
      async (s) => {
        requireOwner(s);
        const done = s.url.searchParams.get('done');
        const id = s.url.searchParams.get('id') ?? '';
        const message = done === 'revoked' ? `Revoked ${id}.` : done === 'plan' ? `Changed the plan of ${id}.` : undefined;
        return layout(s, 'Keys', keysBody(await keyRows(), s.session.account, s.session.csrf, { message }), '/console/keys');
      },
    ],
    [
      /^\/console\/oauth-clients$/,
      '/console/oauth-clients',
      async (s) => {
        if (!oauth) throw notFound();
        const notice = s.url.searchParams.get('done') === 'revoked' ? 'Revoked: that client’s tokens no longer work; it must ask for approval again.' : undefined;
        return layout(s, 'OAuth clients', oauthClientsBody(await oauth.list(s.session.account.id), s.session.csrf, notice), '/console/oauth-clients');
      },
    ],
  ];

  /** POST actions of a signed-in key; each answers with a redirect (or a page showing a new key once). */
  const actions: Array<[RegExp, string, (s: Signed, form: URLSearchParams, match: RegExpExecArray) => Promise<void>]> = [
    [
      /^\/console\/sign-out$/,
      '/console/sign-out',
      async (s) => {
        await sessions.end(readCookie(s.req, SESSION_COOKIE));
        s.res.setHeader('Set-Cookie', clearCookie(s.req, SESSION_COOKIE));
        redirect(s.res, '/console/sign-in?signed-out=1');
      },
    ],
    [
      new RegExp(`^/console/jobs/${JOB_ID}/cancel$`),
      '/console/jobs/{jobId}/cancel',
      async (s, _form, match) => {
        const jobId = decodeSegment(match[1]);
        const cancel = app.gate.operation('job_cancel');
        if (!cancel) throw new GleanerError('NOT_FOUND', 'This server has no job_cancel operation.');
        // Through the gate, as DELETE /v1/jobs/{id}: the same checks, the same refund, the same usage entry.
        await app.gate.call(cancel, { jobId }, { account: s.session.account });
        redirect(s.res, `/console/jobs/${encodeURIComponent(jobId)}?done=cancel`);
      },
    ],
    [
      /^\/console\/keys$/,
      '/console/keys',
      async (s, form) => {
        requireOwner(s);
        const fail = async (message: string) => sendPage(s.res, 400, layout(s, 'Keys', keysBody(await keyRows(), s.session.account, s.session.csrf, { error: message }), '/console/keys'));
        const plan = parsePlanName(form.get('plan') ?? '');
        if (!plan) return fail(`Choose a plan: ${PLAN_NAMES.join(', ')}.`);
        const name = (form.get('name') ?? '').trim();
        if (name.length > 100) return fail('The name is longer than 100 characters.');
        const creditsText = (form.get('credits') ?? '').trim();
        let monthlyCredits: number | undefined;
        if (creditsText !== '') {
          monthlyCredits = Number(creditsText);
          if (!/^\d{1,12}$/.test(creditsText)) return fail(`Monthly credits must be a whole number, not "${creditsText.slice(0, 40)}".`);
        }
        const created = await accounts.create({ plan, name, monthlyCredits, role: form.get('owner') === 'yes' ? 'owner' : 'member' });
        // The new key is in this reply only (no-store): reloading the list never shows it again.
        sendPage(s.res, 200, layout(s, 'Keys', keysBody(await keyRows(), s.session.account, s.session.csrf, { created }), '/console/keys'));
      },
    ],
    [
      new RegExp(`^/console/keys/${ACCOUNT_ID}/revoke$`),
      '/console/keys/{id}/revoke',
      async (s, _form, match) => {
        requireOwner(s);
        const account = await accounts.revoke(match[1]);
        redirect(s.res, `/console/keys?done=revoked&id=${encodeURIComponent(account.id)}`);
      },
    ],
    [
      new RegExp(`^/console/keys/${ACCOUNT_ID}/plan$`),
      '/console/keys/{id}/plan',
      async (s, form, match) => {
        requireOwner(s);
        const plan = parsePlanName(form.get('plan') ?? '');
        if (!plan) throw new GleanerError('INVALID_REQUEST', `Choose a plan: ${PLAN_NAMES.join(', ')}.`);
        const account = await accounts.setPlan(match[1], plan);
        redirect(s.res, `/console/keys?done=plan&id=${encodeURIComponent(account.id)}`);
      },
    ],
    [
      /^\/console\/oauth-clients\/([^/]{1,200})\/revoke$/,
      '/console/oauth-clients/{grantId}/revoke',
      async (s, _form, match) => {
        if (!oauth) throw notFound();
        await oauth.revoke(s.session.account.id, decodeSegment(match[1]));
        redirect(s.res, '/console/oauth-clients?done=revoked');
      },
    ],
  ];

  async function keyRows(): Promise<KeyRow[]> {
    const all = await accounts.list();
    return Promise.all(all.map(async (account) => ({ account, balance: await accounts.balance(account) })));
  }

  async function signInPage(r: Request, status: number, messages: { error?: string; notice?: string } = {}): Promise<void> {
    // A fresh form token bound to a cookie of its own: a form posted from elsewhere has neither.
    const secret = newSecret();
    r.res.setHeader('Set-Cookie', cookieHeader(r.req, SIGN_IN_COOKIE, secret, SIGN_IN_FORM_MS / 1000));
    sendPage(r.res, status, page({ title: 'Sign in', body: signInBody(derivedToken(secret, 'sign-in'), messages.error, messages.notice) }));
  }

  async function signIn(r: Request): Promise<void> {
    checkSameOrigin(r.req);
    const form = await readForm(r.req, options.bodyDeadlineMs);
    const secret = readCookie(r.req, SIGN_IN_COOKIE);
    if (!secret || !sameToken(form.get('csrf') ?? undefined, derivedToken(secret, 'sign-in'))) {
      return signInPage(r, 403, { error: 'This sign-in form has expired or did not come from this console. Paste the key again in this form.' });
    }
    const key = (form.get('key') ?? '').trim();
    if (!key) return signInPage(r, 400, { error: 'Paste an API key to sign in.' });
    // Key guessing: an address that presented too many wrong keys is refused before the key is looked at.
    const address = clientAddress(r.req);
    const throttled = await app.oauth.throttle.refusal('key-failure', address, false);
    if (throttled) {
      r.res.setHeader('Retry-After', throttled.headers['Retry-After'] ?? '60');
      return signInPage(r, 429, { error: throttled.message });
    }
    let account;
    try {
      account = await accounts.authenticate(key);
    } catch (error) {
      // One message for an unknown and a revoked key: the page tells nothing more than "not valid".
      if (toGleanerError(error).code === 'UNAUTHORIZED') {
        await app.oauth.throttle.refusal('key-failure', address, true);
        return signInPage(r, 401, { error: 'That key is not valid: it is unknown or has been revoked. Check that you pasted all of it.' });
      }
      throw error;
    }
    const { token, maxAgeSeconds } = await sessions.start(account);
    note(r.res, { accountId: account.id });
    r.res.setHeader('Set-Cookie', [cookieHeader(r.req, SESSION_COOKIE, token, maxAgeSeconds), clearCookie(r.req, SIGN_IN_COOKIE)]);
    redirect(r.res, '/console');
  }

  return async (req, res) => {
    securityHeaders(res);
    note(res, { surface: 'console', route: '/console', operation: 'console' });
    const r: Request = { req, res, url: new URL(req.url ?? '/', 'http://gleaner.local') };
    const { pathname } = r.url;
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    try {
      if (pathname === '/console/console.css') {
        if (method !== 'GET') throw notAllowed('GET');
        return sendStylesheet(req, res);
      }
      if (pathname === '/console/sign-in') {
        note(res, { route: '/console/sign-in' });
        if (method === 'POST') return await signIn(r);
        if (method !== 'GET') throw notAllowed('GET, POST');
        if (await sessions.find(readCookie(req, SESSION_COOKIE))) return redirect(res, '/console');
        return await signInPage(r, 200, r.url.searchParams.has('signed-out') ? { notice: 'Signed out.' } : {});
      }
      if (method === 'POST') {
        // The origin first: a cross-site post learns nothing, not even whether its cookie was valid.
        checkSameOrigin(req);
        const found = actions.map(([pattern, route, run]) => ({ match: pattern.exec(pathname), route, run })).find((a) => a.match);
        if (!found) throw notFound();
        note(res, { route: found.route });
        const session = await sessions.find(readCookie(req, SESSION_COOKIE));
        if (!session) return redirect(res, '/console/sign-in');
        note(res, { accountId: session.account.id });
        const form = await readForm(req, options.bodyDeadlineMs);
        if (!sameToken(form.get('csrf') ?? undefined, session.csrf)) {
          throw new GleanerError('FORBIDDEN', 'This form is missing its token or belongs to another session. Reload the page and try again.');
        }
        return await found.run({ ...r, session }, form, found.match!);
      }
      if (method !== 'GET') throw notAllowed('GET, POST');
      const found = pages.map(([pattern, route, render]) => ({ match: pattern.exec(pathname), route, render })).find((p) => p.match);
      if (!found) throw notFound();
      note(res, { route: found.route });
      const session = await sessions.find(readCookie(req, SESSION_COOKIE));
      if (!session) return redirect(res, '/console/sign-in');
      note(res, { accountId: session.account.id });
      sendPage(res, 200, await found.render({ ...r, session }, found.match!));
    } catch (thrown) {
      const error = toGleanerError(thrown);
      if (error.code === 'INTERNAL_ERROR') app.log.error({ err: thrown }, 'internal error in the console');
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      if (!req.complete) res.setHeader('Connection', 'close');
      sendPage(res, error.status, page({ title: errorTitle(error.status), body: html`<p class="error" role="alert">${error.message}</p><p><a href="/console">Back to the console</a></p>` }));
    }
  };
}

function requireOwner(s: Signed): void {
  // A member is not told the page exists.
  if (!isOwner(s.session.account)) throw notFound();
}

function notFound(): GleanerError {
  return new GleanerError('NOT_FOUND', 'No such page in the console.');
}

function notAllowed(allow: string): GleanerError {
  return new GleanerError('METHOD_NOT_ALLOWED', `Use ${allow} here.`, { headers: { Allow: allow } });
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new GleanerError('NOT_FOUND', 'No such page in the console.');
  }
}

function errorTitle(status: number): string {
  return status === 404 ? 'Not found' : status === 403 ? 'Refused' : status === 429 ? 'Too many requests' : status >= 500 ? 'Something went wrong' : 'Cannot do that';
}

function sendPage(res: ServerResponse, status: number, body: string): void {
  if (res.headersSent) return void res.end();
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  // Pages show balances, jobs and once a new key: never kept by a cache or the back button's store.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** 303: the browser follows with a GET, so a reload never posts a form twice. */
function redirect(res: ServerResponse, location: string): void {
  res.statusCode = 303;
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  res.end();
}

function sendStylesheet(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('ETag', STYLESHEET_ETAG);
  res.setHeader('Cache-Control', 'no-cache');
  if (req.headers['if-none-match'] === STYLESHEET_ETAG) {
    res.statusCode = 304;
    return void res.end();
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/css; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(STYLESHEET));
  res.end(STYLESHEET);
}
