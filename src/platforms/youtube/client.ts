/**
 * The InnerTube client: youtubei.js, with every request it makes sent through Gleaner's own
 * outbound client (overrides, SSRF guard, timeouts, retries and per-host politeness stay ours).
 *
 * The session is generated locally and neither the player script nor the InnerTube config is
 * fetched at start-up: transcripts, metadata, search and listings need none of them, and each
 * would be one more request to YouTube before the first useful one.
 *
 * The client identities sent (names, versions, user agents, devices) are the platform profile's,
 * not youtubei.js's built-in ones (client-profile.ts).
 */
import type { Innertube } from 'youtubei.js';
import { GleanerError, isGleanerError } from '../../errors.js';
import type { HttpClient } from '../../net/http.js';
import { botCheckError, changedError, htmlRefusal } from './refusals.js';
import { profileOf } from '../profile.js';
import { userAgent } from '../browser.js';
import { withClientProfile } from './client-profile.js';

type Youtubei = typeof import('youtubei.js');
let youtubei: Youtubei | undefined;
let loading: Promise<Youtubei> | undefined;

/**
 * youtubei.js, loaded on the first YouTube call rather than at start: it is about 670 modules, most
 * of what `gleaner serve` would otherwise load before it listens.
 */
export function loadYoutubei(): Promise<Youtubei> {
  loading ??= import('youtubei.js').then((library) => {
    library.Log.setLevel(library.Log.Level.NONE);
    youtubei = library;
    return library;
  });
  return loading;
}

const clients = new WeakMap<HttpClient, Promise<Innertube>>();

/** One InnerTube session per outbound client (one per running app). */
export function innertube(http: HttpClient): Promise<Innertube> {
  let client = clients.get(http);
  if (!client) {
    client = loadYoutubei().then(({ Innertube }) => Innertube.create({
      fetch: gleanerFetch(http),
      generate_session_locally: true,
      retrieve_player: false,
      retrieve_innertube_config: false,
      lang: 'en',
      location: 'US',
      // youtubei.js would pick a random Chrome of its release; the profile's is current.
      user_agent: userAgent(http),
    }));
    // A failed start (it makes no request, so it should not) must not poison later calls.
    client.catch(() => clients.delete(http));
    clients.set(http, client);
  }
  return client;
}

/** A WHATWG fetch over HttpClient.fetch, as youtubei.js expects one. */
function gleanerFetch(http: HttpClient): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const method = request.method.toUpperCase() as 'GET' | 'POST' | 'HEAD' | 'PUT';
    let headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    let body: Uint8Array | undefined = method === 'GET' || method === 'HEAD' ? undefined : new Uint8Array(await request.arrayBuffer());
    if (body && new URL(request.url).pathname.startsWith('/youtubei/')) ({ body, headers } = withClientProfile(profileOf(http), body, headers));
    // InnerTube POSTs only read: retrying them on a transient failure is safe. A 429 is not retried
    // from the same exit (that only extends the block): the caller rotates the exit instead.
    const reply = await http.fetch(request.url, { method, headers, body, retries: 2, retryRateLimited: false, maxBytes: 16 * 1024 * 1024, credentials: true });
    if (new URL(request.url).pathname.startsWith('/youtubei/')) {
      const what = `the ${new URL(request.url).pathname.replace(/^\/youtubei\/v1\//, '')} request`;
      if (reply.status === 429) throw botCheckError(what, { clients: [clientNameOf(body)], exits: http.egress.poolSize('youtube') });
      const type = reply.headers['content-type'] ?? '';
      // JSON was asked for: a page instead is a consent wall, a captcha, or a changed endpoint.
      if (reply.status < 500 && reply.body.length > 0 && (/html/i.test(type) || reply.text().trimStart().startsWith('<'))) throw htmlRefusal(what, reply.url, reply.text());
    }
    const empty = reply.status === 204 || reply.status === 304 || method === 'HEAD';
    return new Response(empty ? null : new Uint8Array(reply.body), { status: reply.status, headers: reply.headers });
  };
}

/** The InnerTube client a request body names (for messages). */
function clientNameOf(body: Uint8Array | undefined): string {
  try {
    return String((JSON.parse(Buffer.from(body ?? []).toString('utf8')) as { context?: { client?: { clientName?: string } } }).context?.client?.clientName ?? 'WEB');
  } catch {
    return 'WEB';
  }
}

/** The HTTP status in a youtubei.js request failure, if that is what the error is. */
export function upstreamStatus(error: unknown): number | undefined {
  // Before youtubei.js is loaded, nothing it throws can exist.
  if (!youtubei || !(error instanceof youtubei.Utils.InnertubeError)) return undefined;
  const found = /failed with status code (\d{3})/.exec(error.message);
  return found ? Number(found[1]) : undefined;
}

/**
 * Runs one YouTube call and turns whatever it throws into a GleanerError: our own client's errors
 * (unreachable, timeout, too large) pass through; `classify` may name a refusal better (a 404 on a
 * channel, youtubei.js saying a video is unavailable); an HTTP error is UPSTREAM_ERROR, and a reply
 * youtubei.js could not parse is UPSTREAM_CHANGED (YouTube changed it: update Gleaner).
 */
export async function callYoutube<T>(
  what: string,
  work: () => Promise<T>,
  classify?: (status: number | undefined, message: string) => GleanerError | undefined,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
      if (isGleanerError(e)) throw e;
    }
    const status = upstreamStatus(error);
    const message = (error as Error)?.message ?? String(error);
    const named = classify?.(status, message);
    if (named) throw named;
    if (status !== undefined) throw new GleanerError('UPSTREAM_ERROR', `YouTube answered ${what} with HTTP ${status}.`, { cause: error });
    throw changedError(what, error);
  }
}
