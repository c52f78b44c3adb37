/**
 * The two ways a platform's refusal reaches the user, each naming what the operator can do:
 * UPSTREAM_BLOCKED (the platform turned this server away: a proxy or cookies get past it) and
 * UPSTREAM_CHANGED (the platform's reply is no longer one Gleaner understands: update Gleaner).
 */
import { GleanerError } from '../errors.js';

export type SocialPlatform = 'tiktok' | 'instagram' | 'x' | 'facebook';

const NAMES: Record<SocialPlatform, string> = { tiktok: 'TikTok', instagram: 'Instagram', x: 'X', facebook: 'Facebook' };

/**
 * `what` says what the platform did ("answered 429 to every request"); the way out is appended.
 * `identities`: the platform turned the profile's browser identities away (TikTok refuses some
 * Chrome versions), so other user agents in GLEANER_PLATFORM_PROFILE are a way out too.
 */
export function blocked(platform: SocialPlatform, what: string, options: { cookies?: boolean; identities?: boolean } = {}): GleanerError {
  const proxy = `GLEANER_PROXY_URL_${platform.toUpperCase()}`;
  const cookies = options.cookies === false ? '' : ', or log in through cookies (GLEANER_COOKIES_FILE, a Netscape cookies.txt)';
  const identities = options.identities
    ? ', or set other user agents (browsers in GLEANER_PLATFORM_PROFILE)'
    : '';
  return new GleanerError(
    'UPSTREAM_BLOCKED',
    `${NAMES[platform]} refused this server: ${what}. Route ${NAMES[platform]} through a proxy (GLEANER_PROXY_URL or ${proxy})${identities}${cookies}, or try again later.`,
  );
}

/** `what` names the piece that is missing or unreadable ("the video data in the page"). */
export function changed(platform: SocialPlatform, what: string): GleanerError {
  return new GleanerError('UPSTREAM_CHANGED', `${NAMES[platform]} changed its pages: ${what} is not where Gleaner reads it. Update Gleaner.`);
}
