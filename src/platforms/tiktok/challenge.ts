/**
 * TikTok's WAF challenge page, as yt-dlp's tiktok.py reads it: instead of the video page, a page
 * whose element id="cs" carries, in its class, base64 JSON {v: {a, c}, ...}; the answer is the
 * decimal number n (0 ≤ n ≤ 1,000,000) for which SHA-256(base64decode(a) + n) = base64decode(c).
 * The JSON with d = base64(n) added, base64 again, goes back as the cookie named by id="wci"
 * (plus the optional id="rci"/id="rs" pair), and the page is asked for once more.
 */
import { createHash } from 'node:crypto';
import * as cheerio from 'cheerio';

export interface Challenge {
  data: Record<string, unknown> & { v: { a: string; c: string } };
  cookieName: string;
  extra?: { name: string; value: string };
}

const MAX_ANSWER = 1_000_000;
/** Hashes per turn of the event loop: the search never holds the server for long. */
const BATCH = 20_000;

export function readChallenge(html: string): Challenge | undefined {
  if (!html.includes('id="cs"') && !html.includes("id='cs'")) return undefined;
  const $ = cheerio.load(html);
  const encoded = $('#cs').attr('class');
  const cookieName = $('#wci').attr('class');
  if (!encoded || !cookieName) return undefined;
  try {
    const data = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Challenge['data'];
    if (typeof data?.v?.a !== 'string' || typeof data.v.c !== 'string') return undefined;
    const rci = $('#rci').attr('class');
    const rs = $('#rs').attr('class');
    return { data, cookieName, extra: rci && rs ? { name: rci, value: rs } : undefined };
  } catch {
    return undefined;
  }
}

/** The Cookie header that answers the challenge, or undefined when no number up to the bound fits. */
export async function solveChallenge(challenge: Challenge, signal?: AbortSignal): Promise<string | undefined> {
  const prefix = Buffer.from(challenge.data.v.a, 'base64');
  const expected = Buffer.from(challenge.data.v.c, 'base64');
  const base = createHash('sha256').update(prefix);
  for (let start = 0; start <= MAX_ANSWER; start += BATCH) {
    signal?.throwIfAborted();
    for (let n = start; n < Math.min(start + BATCH, MAX_ANSWER + 1); n++) {
      const digest = base.copy().update(String(n)).digest();
      if (digest.equals(expected)) {
        const answered = { ...challenge.data, d: Buffer.from(String(n)).toString('base64') };
        const value = Buffer.from(JSON.stringify(answered)).toString('base64');
        return [`${challenge.cookieName}=${value}`, ...(challenge.extra ? [`${challenge.extra.name}=${challenge.extra.value}`] : [])].join('; ');
      }
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return undefined;
}
