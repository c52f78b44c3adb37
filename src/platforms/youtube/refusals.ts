/**
 * How YouTube refuses a server, and the errors that tell the user the way out. A refusal of this
 * server (bot check, 429, consent or captcha page, PO token wanted) is UPSTREAM_BLOCKED; a reply
 * Gleaner no longer understands is UPSTREAM_CHANGED. One place, so every YouTube path says the same.
 */
import { GleanerError } from '../../errors.js';

/** YouTube's bot check ("Sign in to confirm you're not a bot") and its older "unusual traffic" wording. */
export function isBotCheck(text: string | undefined): boolean {
  return /not a bot|unusual traffic|confirm you.?re not/i.test(text ?? '');
}

const PROXY_WAY_OUT =
  'YouTube blocks many data-centre addresses: give it another exit with GLEANER_PROXY_URL_YOUTUBE (or GLEANER_PROXY_URL; a comma-separated list is a pool, rotated when one is blocked), or send the cookies of a signed-in browser with GLEANER_COOKIES_FILE. `gleaner doctor` checks the result.';

/** The bot check or an address block on every client and exit tried. */
export function botCheckError(what: string, tried: { clients: string[]; exits: number }): GleanerError {
  const exits = tried.exits > 1 ? ` through ${tried.exits} proxies` : tried.exits === 1 ? ' through the configured proxy' : '';
  return new GleanerError(
    'UPSTREAM_BLOCKED',
    `YouTube refused ${what} from this server with its bot check ("Sign in to confirm you're not a bot") or a rate limit, on every client tried (${tried.clients.join(', ')})${exits}. ${PROXY_WAY_OUT}`,
  );
}

/** Caption tracks that want a proof-of-origin token on every client tried. */
export function poTokenError(videoId: string, clients: string[], providerConfigured: boolean): GleanerError {
  const way = providerConfigured
    ? 'the PO token from GLEANER_YOUTUBE_POT_PROVIDER_URL was not accepted either (check the provider runs the current BgUtils and mints for this server\'s exit).'
    : 'set GLEANER_YOUTUBE_POT_PROVIDER_URL to a PO-token provider (bgutil-ytdlp-pot-provider, e.g. http://127.0.0.1:4416), or list other InnerTube clients in GLEANER_YOUTUBE_CLIENTS.';
  return new GleanerError(
    'UPSTREAM_BLOCKED',
    `YouTube wants a PO token (proof of origin) for the captions of ${videoId} on every client tried (${clients.join(', ')}): its caption URLs are marked exp=xpe and answer empty without one; ${way}`,
  );
}

/** A reply Gleaner cannot read any more (YouTube changed it). */
export function changedError(what: string, cause?: unknown): GleanerError {
  return new GleanerError('UPSTREAM_CHANGED', `YouTube's reply to ${what} is no longer understood by this version of Gleaner; update Gleaner.`, { cause });
}

/**
 * An HTML page where JSON or captions were expected: a consent wall (EU), the "unusual traffic"
 * captcha page, or a sign-in redirect are refusals; any other page is a changed reply.
 */
export function htmlRefusal(what: string, finalUrl: string, body: string): GleanerError {
  const host = (() => {
    try {
      return new URL(finalUrl).hostname;
    } catch {
      return '';
    }
  })();
  if (host.startsWith('consent.') || /consent\.youtube\.com|consent\.google\.com/.test(body.slice(0, 200_000))) {
    return new GleanerError(
      'UPSTREAM_BLOCKED',
      `YouTube answered ${what} with its cookie-consent page. Send the cookies of a browser that accepted it (GLEANER_COOKIES_FILE, which must hold YouTube's SOCS or CONSENT cookie), or use a proxy outside the EU (GLEANER_PROXY_URL_YOUTUBE).`,
    );
  }
  if (host.startsWith('accounts.') || /recaptcha|unusual traffic|not a robot|sorry\/index/i.test(body.slice(0, 200_000))) {
    return new GleanerError('UPSTREAM_BLOCKED', `YouTube answered ${what} with a challenge page (captcha or sign-in) instead of data. ${PROXY_WAY_OUT}`);
  }
  return changedError(what);
}
