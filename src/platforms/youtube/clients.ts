/**
 * The InnerTube clients asked, in order, for a video's caption tracks and audio. Which of them
 * YouTube serves cleanly shifts month to month (2026: WEB caption URLs want a PO token and WEB
 * formats have no URL; VISIONOS refuses made-for-kids videos with an ERROR while ANDROID and IOS
 * play them), so the orders are the platform profile's (youtube.order; GLEANER_YOUTUBE_CLIENTS is
 * its shorthand) and callers fall through to the next client on any failure of one.
 */
import type { Innertube, YT } from 'youtubei.js';
import { Constants } from '../../profile/youtubei-constants.js';
import { GleanerError, isGleanerError } from '../../errors.js';
import type { HttpClient } from '../../net/http.js';
import { undescribedClients, type PlatformProfile } from '../../profile/load.js';
import { callYoutube } from './client.js';
import { missingVideo, playabilityError } from './video.js';

export type InnerTubeClient = NonNullable<NonNullable<Parameters<Innertube['getBasicInfo']>[1]>['client']>;

/** VISIONOS first (yt-dlp's default; needs no player script), WEB last (PO token): the built-in profile's caption order. */
export const DEFAULT_YOUTUBE_CLIENTS: InnerTubeClient[] = ['VISIONOS', 'ANDROID', 'IOS', 'WEB'];

/** A comma list of client names (GLEANER_YOUTUBE_CLIENTS) as a list; a name youtubei.js does not know is an operator error naming it. */
export function youtubeClients(setting: string | undefined): InnerTubeClient[] {
  if (!setting) return DEFAULT_YOUTUBE_CLIENTS;
  const known = Constants.SUPPORTED_CLIENTS as readonly string[];
  const names = setting.split(',').map((n) => n.trim().toUpperCase()).filter(Boolean);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new GleanerError('NOT_CONFIGURED', `GLEANER_YOUTUBE_CLIENTS names unknown InnerTube clients (${unknown.join(', ')}); known: ${known.join(', ')}.`);
  }
  return names as InnerTubeClient[];
}

/**
 * At start: the clients an order names that the profile does not describe (GLEANER_YOUTUBE_CLIENTS
 * may name any client youtubei.js knows). They are asked with youtubei.js's own identity, whose
 * version YouTube may already have retired: one warning each, naming the entry to add.
 */
export function youtubeProfileWarnings(profile: PlatformProfile): string[] {
  return undescribedClients(profile).map((key) => {
    const own = (Constants.CLIENTS as Record<string, { NAME: string; VERSION: string } | undefined>)[key === 'YTKIDS' ? 'WEB_KIDS' : key];
    return `The YouTube client ${key} is asked (youtube.order) but the platform profile does not describe it: youtubei.js's own identity${own ? ` (${own.NAME} ${own.VERSION})` : ''} is sent, which YouTube may have retired. Describe it in youtube.clients.${key} (GLEANER_PLATFORM_PROFILE, see docs/platform-profile.md).`;
  });
}

export type PlayerOutcome =
  | { kind: 'playable'; client: InnerTubeClient; info: YT.VideoInfo }
  /** The video is refused to everyone on this client (private, age-restricted, region-locked, unplayable). */
  | { kind: 'refused'; client: InnerTubeClient; error: GleanerError; reason: string }
  /** This client says the video does not exist (ERROR, "unavailable"); final only when every client says so. */
  | { kind: 'missing'; client: InnerTubeClient; error: GleanerError }
  /** This server is refused (bot check, 429, challenge page). */
  | { kind: 'blocked'; client: InnerTubeClient; error: GleanerError }
  /** This client's reply was an error or could not be read (another client's may be fine). */
  | { kind: 'failed'; client: InnerTubeClient; error: GleanerError };

/**
 * One client's player reply for a video. "Does not exist" is this client's word only: VISIONOS
 * answers ERROR for made-for-kids videos that ANDROID and IOS play (yt-dlp reads them through the
 * next client since 2026-07).
 */
export async function askPlayer(yt: Innertube, videoId: string, client: InnerTubeClient): Promise<PlayerOutcome> {
  let info: YT.VideoInfo;
  try {
    info = await callYoutube(`the ${client} player request for ${videoId}`, () => yt.getBasicInfo(videoId, { client }), missingVideo(videoId));
  } catch (error) {
    if (!isGleanerError(error)) throw error;
    if (error.code === 'UPSTREAM_BLOCKED') return { kind: 'blocked', client, error };
    if (error.code === 'CONTENT_NOT_FOUND') return { kind: 'missing', client, error };
    if (error.code === 'UPSTREAM_CHANGED' || error.code === 'UPSTREAM_ERROR') return { kind: 'failed', client, error };
    throw error;
  }
  const error = playabilityError(info, videoId, client);
  if (!error) return { kind: 'playable', client, info };
  if (error.code === 'CONTENT_NOT_FOUND') return { kind: 'missing', client, error };
  if (error.code === 'UPSTREAM_BLOCKED') return { kind: 'blocked', client, error };
  return { kind: 'refused', client, error, reason: info.playability_status?.reason ?? '' };
}

/**
 * The further exits of YouTube's proxy pool one call may still move to: each blocked exit is left
 * for the next (a fresh connection), never returned to within the call.
 */
export class ExitBudget {
  readonly pool: number;
  private left: number;

  constructor(private readonly http: HttpClient) {
    this.pool = http.egress.poolSize('youtube');
    this.left = Math.max(0, this.pool - 1);
  }

  /** Moves every later YouTube request to the next exit; true when there was one left to move to. */
  next(): boolean {
    if (!this.http.egress.rotate('youtube') || this.left <= 0) return false;
    this.left--;
    return true;
  }
}

/**
 * What `accept` returns when a download was refused and the exit moved: the client is asked again
 * from the new exit (its URLs are bound to the address that asked for them).
 */
export const ASK_AGAIN: unique symbol = Symbol('ask this client again from the new exit');

/**
 * Asks the clients in order until `accept` takes a playable reply. A blocked exit is not asked
 * again: with a proxy pool the same client is asked once more through the next proxy (a fresh
 * connection), and without one the next client is tried. Returns what each client said.
 */
export async function throughClients<T>(
  http: HttpClient,
  yt: Innertube,
  videoId: string,
  clients: InnerTubeClient[],
  accept: (outcome: Extract<PlayerOutcome, { kind: 'playable' }>) => Promise<T | typeof ASK_AGAIN | undefined>,
  exits: ExitBudget = new ExitBudget(http),
): Promise<{ result?: T; outcomes: PlayerOutcome[]; exits: number }> {
  const outcomes: PlayerOutcome[] = [];
  for (let i = 0; i < clients.length; i++) {
    const outcome = await askPlayer(yt, videoId, clients[i]);
    outcomes.push(outcome);
    if (outcome.kind === 'blocked') {
      // The exit is blocked: move every later YouTube request to the next proxy; ask this client again there.
      if (exits.next()) i--;
      continue;
    }
    // A private or removed video is so for every client: asking the others only adds requests.
    if (outcome.kind === 'refused' && /private|removed|terminated/i.test(outcome.reason)) break;
    if (outcome.kind !== 'playable') continue;
    const result = await accept(outcome);
    if (result === ASK_AGAIN) {
      // The earlier reply was this exit's: the one the new exit gets replaces it.
      outcomes.pop();
      i--;
      continue;
    }
    if (result !== undefined) return { result, outcomes, exits: exits.pool };
  }
  return { outcomes, exits: exits.pool };
}

/**
 * Why no client played the video, as one error: the video's own refusal (private, age-restricted)
 * first; "does not exist" only when every client said so; then a consent wall, a reply not
 * understood, and last the bot check.
 */
export function noPlayerError(outcomes: PlayerOutcome[], fallback: () => GleanerError): GleanerError {
  const unplayable = outcomes.filter((o): o is Exclude<PlayerOutcome, { kind: 'playable' }> => o.kind !== 'playable');
  const refused = unplayable.find((o) => o.kind === 'refused');
  if (refused) return refused.error;
  const missing = outcomes.filter((o): o is Extract<PlayerOutcome, { kind: 'missing' }> => o.kind === 'missing');
  if (missing.length > 0 && missing.length === outcomes.length) return missing[0].error;
  const consent = unplayable.find((o) => o.kind === 'blocked' && /consent/i.test(o.error.message));
  if (consent) return consent.error;
  const failed = unplayable.find((o) => o.kind === 'failed');
  if (failed && !outcomes.some((o) => o.kind === 'blocked')) return failed.error;
  return fallback();
}

/**
 * Runs `work` (a YouTube call on one client, e.g. metadata's WEB player and watch replies) and, when
 * it is blocked and a proxy pool has another exit, once more from each further exit, never twice
 * from the same one.
 */
export async function onFreshExits<T>(http: HttpClient, work: () => Promise<T>): Promise<T> {
  const exits = new ExitBudget(http);
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!isGleanerError(error) || error.code !== 'UPSTREAM_BLOCKED') throw error;
      if (!exits.next()) throw error;
    }
  }
}
