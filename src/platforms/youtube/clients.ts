/**
 * The InnerTube clients asked, in order, for a video's caption tracks and audio. Which of them
 * YouTube serves cleanly shifts month to month (2026: WEB caption URLs want a PO token and WEB
 * formats have no URL, while VISIONOS, ANDROID and IOS still answer with usable ones), so the order
 * is configurable (GLEANER_YOUTUBE_CLIENTS) and callers fall through to the next on failure.
 */
import { Constants, type Innertube, type YT } from 'youtubei.js';
import { GleanerError, isGleanerError } from '../../errors.js';
import type { HttpClient } from '../../net/http.js';
import { callYoutube } from './client.js';
import { missingVideo, playabilityError } from './video.js';

export type InnerTubeClient = NonNullable<NonNullable<Parameters<Innertube['getBasicInfo']>[1]>['client']>;

/** VISIONOS first (yt-dlp's default since July 2026; needs no player script), WEB last (PO token). */
export const DEFAULT_YOUTUBE_CLIENTS: InnerTubeClient[] = ['VISIONOS', 'ANDROID', 'IOS', 'WEB'];

/** GLEANER_YOUTUBE_CLIENTS as a list; a name youtubei.js does not know is an operator error naming it. */
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

export type PlayerOutcome =
  | { kind: 'playable'; client: InnerTubeClient; info: YT.VideoInfo }
  /** The video is refused to everyone on this client (private, age-restricted, region-locked, unplayable). */
  | { kind: 'refused'; client: InnerTubeClient; error: GleanerError; reason: string }
  /** This server is refused (bot check, 429, challenge page). */
  | { kind: 'blocked'; client: InnerTubeClient; error: GleanerError }
  /** This client's reply was an error or could not be read (another client's may be fine). */
  | { kind: 'failed'; client: InnerTubeClient; error: GleanerError };

/** One client's player reply for a video. A video that does not exist throws CONTENT_NOT_FOUND (no client will differ). */
export async function askPlayer(yt: Innertube, videoId: string, client: InnerTubeClient): Promise<PlayerOutcome> {
  let info: YT.VideoInfo;
  try {
    info = await callYoutube(`the ${client} player request for ${videoId}`, () => yt.getBasicInfo(videoId, { client }), missingVideo(videoId));
  } catch (error) {
    if (isGleanerError(error) && error.code === 'UPSTREAM_BLOCKED') return { kind: 'blocked', client, error };
    if (isGleanerError(error) && (error.code === 'UPSTREAM_CHANGED' || error.code === 'UPSTREAM_ERROR')) return { kind: 'failed', client, error };
    throw error;
  }
  const error = playabilityError(info, videoId, client);
  if (!error) return { kind: 'playable', client, info };
  if (error.code === 'CONTENT_NOT_FOUND') throw error;
  if (error.code === 'UPSTREAM_BLOCKED') return { kind: 'blocked', client, error };
  return { kind: 'refused', client, error, reason: info.playability_status?.reason ?? '' };
}

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
  accept: (outcome: Extract<PlayerOutcome, { kind: 'playable' }>) => Promise<T | undefined>,
): Promise<{ result?: T; outcomes: PlayerOutcome[]; exits: number }> {
  const outcomes: PlayerOutcome[] = [];
  const pool = http.egress.poolSize('youtube');
  let exitsLeft = Math.max(0, pool - 1);
  for (let i = 0; i < clients.length; i++) {
    const outcome = await askPlayer(yt, videoId, clients[i]);
    outcomes.push(outcome);
    if (outcome.kind === 'blocked') {
      // The exit is blocked: move every later YouTube request to the next proxy; ask this client again there.
      if (http.egress.rotate('youtube') && exitsLeft > 0) {
        exitsLeft--;
        i--;
      }
      continue;
    }
    // A private or removed video is so for every client: asking the others only adds requests.
    if (outcome.kind === 'refused' && /private|removed|terminated/i.test(outcome.reason)) break;
    if (outcome.kind !== 'playable') continue;
    const result = await accept(outcome);
    if (result !== undefined) return { result, outcomes, exits: pool };
  }
  return { outcomes, exits: pool };
}

/**
 * Runs `work` (a YouTube call on one client, e.g. metadata's WEB player and watch replies) and, when
 * it is blocked and a proxy pool has another exit, once more from each further exit, never twice
 * from the same one.
 */
export async function onFreshExits<T>(http: HttpClient, work: () => Promise<T>): Promise<T> {
  for (let exitsLeft = Math.max(0, http.egress.poolSize('youtube') - 1); ; exitsLeft--) {
    try {
      return await work();
    } catch (error) {
      if (!isGleanerError(error) || error.code !== 'UPSTREAM_BLOCKED') throw error;
      if (!http.egress.rotate('youtube') || exitsLeft <= 0) throw error;
    }
  }
}
