/**
 * PO tokens (proof of origin) from an HTTP provider compatible with bgutil-ytdlp-pot-provider
 * (GLEANER_YOUTUBE_POT_PROVIDER_URL): `POST /get_pot` with `{ content_binding }` answers
 * `{ poToken, contentBinding, expiresAt }`. A caption URL marked exp=xpe needs a token bound to
 * its video id, added as `pot` with `potc=1` and the client's name in `c`.
 */
import { z } from 'zod';
import { GleanerError } from '../../errors.js';
import type { HttpClient } from '../../net/http.js';

/**
 * A real PO token is a few hundred characters of base64url; one of megabytes (a broken or hostile
 * provider) would be cached and sent in every caption URL, which YouTube then refuses (431).
 */
export const PO_TOKEN_MAX_CHARS = 4096;
/** The provider's whole reply is read up to this (the token plus a little JSON). */
const PROVIDER_REPLY_MAX_BYTES = 64 * 1024;

const providerReply = z.object({
  poToken: z.string().min(1).max(PO_TOKEN_MAX_CHARS).regex(/^[A-Za-z0-9_\-+/=%.]+$/),
  contentBinding: z.string().optional(),
  expiresAt: z.string().optional(),
});

/** Tokens kept until they expire (the provider caches too, but a round trip per caption is waste). */
const cache = new Map<string, { token: string; expires: number }>();
const CACHE_LIMIT = 1000;
/** Used when the provider does not say: BgUtils tokens live about six hours. */
const DEFAULT_LIFETIME_MS = 6 * 60 * 60 * 1000;
/** A token is kept no longer than this whatever its expiresAt says, so a bad one is asked for again soon enough. */
export const PO_TOKEN_MAX_LIFETIME_MS = DEFAULT_LIFETIME_MS;

/** When a token fetched at `now` stops being used: its expiresAt, bounded to (now, now + the longest lifetime]. */
export function poTokenExpiry(expiresAt: string | undefined, now: number): number {
  const stated = Date.parse(expiresAt ?? '');
  if (!Number.isFinite(stated) || stated <= now) return now + DEFAULT_LIFETIME_MS;
  return Math.min(stated, now + PO_TOKEN_MAX_LIFETIME_MS);
}

/** A caption URL that answers empty without a PO token: exp carries xpe or xpv, and no pot is on it. */
export function needsPoToken(url: string): boolean {
  const parsed = new URL(url, 'https://www.youtube.com');
  if (parsed.searchParams.get('pot')) return false;
  return (parsed.searchParams.get('exp') ?? '').split(',').some((flag) => flag === 'xpe' || flag === 'xpv');
}

/** The URL with a PO token bound to its video, as YouTube's own player adds it. */
export function withPoToken(url: string, token: string, client: string): string {
  const parsed = new URL(url, 'https://www.youtube.com');
  parsed.searchParams.set('pot', token);
  parsed.searchParams.set('potc', '1');
  if (!parsed.searchParams.get('c')) parsed.searchParams.set('c', client);
  return parsed.toString();
}

/** A PO token bound to `contentBinding` (a video id for captions), from the provider. */
export async function fetchPoToken(http: HttpClient, providerUrl: string, contentBinding: string, proxy?: string): Promise<string> {
  const key = `${providerUrl} ${proxy ?? ''} ${contentBinding}`;
  const cached = cache.get(key);
  if (cached && cached.expires > Date.now()) return cached.token;
  const endpoint = new URL('get_pot', providerUrl.endsWith('/') ? providerUrl : `${providerUrl}/`).toString();
  let reply;
  try {
    reply = await http.fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // The provider mints for the exit YouTube will see: the proxy the YouTube requests use, if any.
      body: JSON.stringify({ content_binding: contentBinding, ...(proxy ? { proxy } : {}) }),
      retries: 1,
      timeoutMs: 30_000,
      // The operator's own endpoint (configuration, not a caller's URL).
      guard: false,
      maxBytes: PROVIDER_REPLY_MAX_BYTES,
    });
  } catch (error) {
    if (error instanceof GleanerError && error.code === 'PAYLOAD_TOO_LARGE') {
      throw new GleanerError('UPSTREAM_ERROR', `The PO-token provider (GLEANER_YOUTUBE_POT_PROVIDER_URL) answered more than ${PROVIDER_REPLY_MAX_BYTES / 1024} KB: not a PO token.`, { cause: error });
    }
    throw new GleanerError('UPSTREAM_UNAVAILABLE', 'The PO-token provider (GLEANER_YOUTUBE_POT_PROVIDER_URL) could not be reached.', { cause: error });
  }
  const parsed = reply.status === 200 ? providerReply.safeParse(safeJson(reply.text())) : undefined;
  if (!parsed?.success) {
    throw new GleanerError('UPSTREAM_ERROR', `The PO-token provider (GLEANER_YOUTUBE_POT_PROVIDER_URL) answered HTTP ${reply.status} without a poToken (of at most ${PO_TOKEN_MAX_CHARS} base64 characters).`);
  }
  const expires = poTokenExpiry(parsed.data.expiresAt, Date.now());
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, { token: parsed.data.poToken, expires });
  return parsed.data.poToken;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
