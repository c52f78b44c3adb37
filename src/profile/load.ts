/**
 * The profile in force: the built-in one, an operator's JSON file (GLEANER_PLATFORM_PROFILE)
 * deep-merged over it, then the older single-value variables (GLEANER_YOUTUBE_CLIENTS,
 * GLEANER_X_TWEET_QUERY_ID, GLEANER_X_BEARER_TOKEN, GLEANER_INSTAGRAM_DOC_ID) over that. The result is
 * validated as a whole: a wrong field stops the start with its path named.
 */
import fs from 'node:fs';
import { BUILTIN_PROFILE } from './builtin.js';
import { platformProfileSchema, type PlatformProfile } from './schema.js';

export { undescribedClients, YOUTUBEI_CLIENTS } from './schema.js';

export { BUILTIN_PROFILE } from './builtin.js';
export type { PlatformProfile, InnertubeClientProfile, BrowserIdentity } from './schema.js';

export interface ProfileSources {
  /** GLEANER_PLATFORM_PROFILE: a JSON file. */
  file?: string;
  /** GLEANER_YOUTUBE_CLIENTS: one order for captions and audio. */
  youtubeClients?: string;
  xTweetQueryId?: string;
  xBearerToken?: string;
  instagramDocId?: string;
}

/** A setting that cannot be used, with the variable and field it comes from. */
export class ProfileError extends Error {}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Keys a JSON object may hold as its own but that mean something else to JavaScript once assigned
 * (`__proto__` replaces an object's prototype; the other two reach its constructor): a profile file
 * is the operator's, but it is read like any input, so such keys are refused wherever they are.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A profile file larger than this is not a profile (the built-in one, printed whole, is about 10 kB). */
export const MAX_PROFILE_FILE_BYTES = 1024 * 1024;

/** Objects merge key by key; anything else (a list, a string, a number) replaces what was there. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return over === undefined ? base : over;
  const merged: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    // Defined, not assigned: a key named __proto__ stays a plain own property, never a prototype.
    Object.defineProperty(merged, key, { value: deepMerge(Object.hasOwn(base, key) ? base[key] : undefined, value), enumerable: true, writable: true, configurable: true });
  }
  return merged;
}

/** A key as a message shows it: the file's text, its control characters escaped (never written raw into a log line). */
function printableKey(key: PropertyKey): string {
  return String(key).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The path of the first forbidden key in a parsed JSON value, walked without recursion (a deep file cannot overflow the stack). */
export function forbiddenKeyPath(json: unknown): string | undefined {
  // Each entry links to its parent, so a deep file costs its size, not its depth squared.
  interface Step { value: unknown; key?: string; parent?: Step }
  const pathOf = (step: Step): string => {
    const keys: string[] = [];
    for (let at: Step | undefined = step; at?.key !== undefined; at = at.parent) keys.push(printableKey(at.key));
    return keys.reverse().join('.');
  };
  const stack: Step[] = [{ value: json }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    if (typeof step.value !== 'object' || step.value === null) continue;
    const isList = Array.isArray(step.value);
    for (const [key, child] of Object.entries(step.value)) {
      const next: Step = { value: child, key, parent: step };
      if (!isList && FORBIDDEN_KEYS.has(key)) return pathOf(next);
      stack.push(next);
    }
  }
  return undefined;
}

function readFile(file: string): Json {
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_PROFILE_FILE_BYTES) {
      throw new ProfileError(`GLEANER_PLATFORM_PROFILE: ${file} is ${size} bytes; a profile file may be at most ${MAX_PROFILE_FILE_BYTES} bytes (it holds only the fields to change)`);
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ProfileError) throw error;
    throw new ProfileError(`GLEANER_PLATFORM_PROFILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ProfileError(`GLEANER_PLATFORM_PROFILE: ${file} is not JSON (${(error as Error).message})`);
  }
  if (!isObject(json)) throw new ProfileError(`GLEANER_PLATFORM_PROFILE: ${file} must hold one JSON object (the profile's fields to change)`);
  const forbidden = forbiddenKeyPath(json);
  if (forbidden) throw new ProfileError(`GLEANER_PLATFORM_PROFILE (${file}): ${forbidden}: the key "${forbidden.split('.').at(-1)}" is not a profile field and is refused anywhere in the file`);
  return json;
}

export function loadPlatformProfile(sources: ProfileSources = {}): PlatformProfile {
  let merged = structuredClone(BUILTIN_PROFILE) as unknown;
  if (sources.file) merged = deepMerge(merged, readFile(sources.file));
  const shorthands: Json = {};
  if (sources.youtubeClients) {
    const names = sources.youtubeClients.split(',').map((n) => n.trim().toUpperCase()).filter(Boolean);
    shorthands.youtube = { order: { captions: names, audio: names } };
  }
  if (sources.xTweetQueryId || sources.xBearerToken) {
    shorthands.x = { ...(sources.xTweetQueryId ? { tweetQueryId: sources.xTweetQueryId } : {}), ...(sources.xBearerToken ? { bearerToken: sources.xBearerToken } : {}) };
  }
  if (sources.instagramDocId) shorthands.instagram = { docId: sources.instagramDocId };
  merged = deepMerge(merged, shorthands);
  const parsed = platformProfileSchema.safeParse(merged);
  if (!parsed.success) {
    const origin = sources.file ? `GLEANER_PLATFORM_PROFILE (${sources.file})` : 'the platform profile';
    const lines = parsed.error.issues.map((issue) => {
      const field = issue.path.map(printableKey).join('.') || '(top level)';
      // A shorthand's value is named by its variable, not by a file it did not come from.
      const by = sources.youtubeClients && field.startsWith('youtube.order.') ? 'GLEANER_YOUTUBE_CLIENTS' : origin;
      // A bad key of a record (a header name, a client name) says what the key must be, not zod's "Invalid key in record".
      const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
      return `${by}: ${field}: ${message}`;
    });
    throw new ProfileError(lines.join('; '));
  }
  return parsed.data;
}

/** Header names whose value is a credential, in a header set of the profile. */
export const CREDENTIAL_HEADER = /^(cookie|authorization|proxy-authorization|x-csrf-token)$/i;

/** The profile's header sets, by their path in the profile. */
export function profileHeaderSets(profile: PlatformProfile): Array<[string, Record<string, string>]> {
  return [
    ['browsers.desktop.headers', profile.browsers.desktop.headers],
    ['browsers.mobile.headers', profile.browsers.mobile.headers],
    ['tiktok.pageHeaders', profile.tiktok.pageHeaders],
    ['tiktok.mediaHeaders', profile.tiktok.mediaHeaders],
  ];
}

/**
 * The credentials an operator put into the profile (GLEANER_X_BEARER_TOKEN or a profile file): X's
 * bearer token when it is not the built-in one, and the value of any login header (Cookie,
 * Authorization, ...) of a header set. The built-in token is the platform's public web client's,
 * in every browser that opens x.com: public knowledge, not a secret of the operator.
 */
export function profileSecrets(profile: PlatformProfile): string[] {
  const found = profile.x.bearerToken !== BUILTIN_PROFILE.x.bearerToken ? [profile.x.bearerToken] : [];
  for (const [, headers] of profileHeaderSets(profile)) {
    for (const [name, value] of Object.entries(headers)) if (CREDENTIAL_HEADER.test(name) && value) found.push(value);
  }
  return found;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days from a profile date (YYYY-MM-DD) to `now`. */
export function profileAgeDays(date: string, now = Date.now()): number {
  return Math.floor((now - Date.parse(`${date}T00:00:00Z`)) / DAY_MS);
}
