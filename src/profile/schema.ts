/**
 * The platform profile: what the platforms change month to month (InnerTube client versions and
 * user agents, browser identities, query and document ids, header sets), as data an operator can
 * replace without a release (GLEANER_PLATFORM_PROFILE). Every entry says when and against which
 * public source it was last checked, so a stale entry is visible, not guessed at.
 */
import { Constants } from './youtubei-constants.js';
import { z } from 'zod';

/**
 * The client keys youtubei.js can build a request for. A profile client is one of them (the profile
 * changes what it sends, it cannot add a client); an order may name any of them, described or not.
 */
export const YOUTUBEI_CLIENTS: readonly string[] = Constants.SUPPORTED_CLIENTS;

/**
 * The profile is read from a file the operator points at: untrusted input whose strings end up in
 * request headers (user agents, header sets, client versions) and URLs (query and document ids).
 * So every string is bounded, and none may hold a control character: a CR or LF in a header value
 * would fail every request (or split it), and a megabyte id would go out with each one.
 */
const CONTROL = /[\u0000-\u001f\u007f]/;
const LIMITS = {
  /** An id, a version, a client name: the longest real one is under 40 characters. */
  token: 128,
  /** A user agent or a header value (browsers send user agents under 300 characters). */
  header: 1024,
  /** A checked.source: a URL with a note. */
  source: 500,
  /** Header sets, clients and orders: the built-in ones hold a dozen at most. */
  entries: 64,
} as const;

/** A string bounded to `max` characters, with no control character (the field is named by zod's path). */
const text = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !CONTROL.test(value), 'must not contain control characters (CR, LF, NUL, tab...)');
const token = () => text(LIMITS.token).min(1);

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD');

/** When an entry was last checked, and the public page or commit it was checked against. */
export const checkedSchema = z.strictObject({
  date: isoDate,
  source: text(LIMITS.source).min(1),
});

const headerSet = z
  .record(z.string().max(LIMITS.token).regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name'), text(LIMITS.header))
  .refine((headers) => Object.keys(headers).length <= LIMITS.entries, `must hold at most ${LIMITS.entries} headers`);

/** One InnerTube client, keyed in the profile by the name youtubei.js knows it by (ANDROID, IOS...). */
export const innertubeClientSchema = z.strictObject({
  /** context.client.clientName as YouTube expects it (IOS, ANDROID, VISIONOS, WEB, ...). */
  clientName: token(),
  /** X-Youtube-Client-Name: the numeric id of clientName. */
  clientNameId: z.number().int().positive().max(10_000),
  clientVersion: token(),
  /** Sent as User-Agent and context.client.userAgent; absent leaves youtubei.js's. */
  userAgent: text(LIMITS.header).min(1).optional(),
  device: z
    .strictObject({
      make: token().optional(),
      model: token().optional(),
      osName: token().optional(),
      osVersion: token().optional(),
      androidSdkVersion: z.number().int().positive().max(1000).optional(),
    })
    .default({}),
  /** The `c=` a caption or stream URL of this client carries (what a PO token is minted for). */
  urlClientName: token(),
  /** Whether this client's caption URLs, or its stream URLs, answer nothing without a PO token. */
  poToken: z.strictObject({ captions: z.boolean(), streams: z.boolean() }),
  checked: checkedSchema,
});

/** A browser as the platforms' pages see it: its user agent with the client hints and fetch metadata that go with it. */
export const browserIdentitySchema = z.strictObject({
  userAgent: text(LIMITS.header).min(1),
  /** Sent with every page request (Accept, Accept-Language, Sec-CH-UA*, Sec-Fetch-*, ...). */
  headers: headerSet,
  checked: checkedSchema,
});

export const platformProfileSchema = z.strictObject({
  /** The day the profile as a whole was last reviewed (the doctor warns when the built-in one is old). */
  date: isoDate,
  youtube: z.strictObject({
    clients: z
      .record(z.string().max(LIMITS.token).regex(/^[A-Z_]+$/, 'must be an upper-case InnerTube client name such as ANDROID'), innertubeClientSchema)
      .refine((clients) => Object.keys(clients).length <= LIMITS.entries, `must describe at most ${LIMITS.entries} clients`),
    /** The clients asked, in order, for caption tracks, and for a direct audio URL (speech to text). */
    order: z.strictObject({
      captions: z.array(token()).min(1).max(LIMITS.entries),
      audio: z.array(token()).min(1).max(LIMITS.entries),
      checked: checkedSchema,
    }),
  }),
  browsers: z.strictObject({ desktop: browserIdentitySchema, mobile: browserIdentitySchema }),
  x: z.strictObject({
    /** The public web client's bearer token (guest tokens are asked with it). */
    bearerToken: text(LIMITS.header).min(20),
    /** The GraphQL query id of TweetResultByRestId. */
    tweetQueryId: z.string().max(LIMITS.token, `must be at most ${LIMITS.token} characters`).regex(/^[A-Za-z0-9_-]+$/, 'must be a GraphQL query id (letters, digits, _ and -)'),
    checked: checkedSchema,
  }),
  instagram: z.strictObject({
    /** doc_id of the logged-out post query (PolarisLoggedOutDesktopWWWPostRootContentQuery). */
    docId: z.string().max(LIMITS.token, `must be at most ${LIMITS.token} characters`).regex(/^\d+$/, 'must be digits'),
    /** X-IG-App-ID of the web app, when the page names none. */
    appId: z.string().max(LIMITS.token, `must be at most ${LIMITS.token} characters`).regex(/^\d+$/, 'must be digits'),
    /** X-ASBD-ID. */
    asbdId: z.string().max(LIMITS.token, `must be at most ${LIMITS.token} characters`).regex(/^\d+$/, 'must be digits'),
    checked: checkedSchema,
  }),
  tiktok: z.strictObject({
    /** Sent with page requests over the desktop identity's headers. */
    pageHeaders: headerSet,
    /** Sent with caption and media requests to TikTok's CDN. */
    mediaHeaders: headerSet,
    checked: checkedSchema,
  }),
}).superRefine((profile, ctx) => {
  // A client youtubei.js cannot be asked for would fail every request that names it: refused here,
  // where every command (serve, profile, doctor) reads the profile, with its field named.
  for (const key of Object.keys(profile.youtube.clients)) {
    if (!YOUTUBEI_CLIENTS.includes(key)) {
      ctx.addIssue({ code: 'custom', path: ['youtube', 'clients', key], message: `is not an InnerTube client youtubei.js knows (it knows ${YOUTUBEI_CLIENTS.join(', ')}); the profile changes what a known client sends, a new client needs a youtubei.js release` });
    }
  }
  // An order may name a client the profile leaves undescribed (youtubei.js's own identity is sent
  // then, with a warning at start: undescribedClients), but not one youtubei.js cannot build.
  for (const list of ['captions', 'audio'] as const) {
    profile.youtube.order[list].forEach((name, i) => {
      if (!Object.hasOwn(profile.youtube.clients, name) && !YOUTUBEI_CLIENTS.includes(name)) {
        ctx.addIssue({ code: 'custom', path: ['youtube', 'order', list, i], message: `names "${name}", which neither youtube.clients describes nor youtubei.js knows (known: ${YOUTUBEI_CLIENTS.join(', ')})` });
      }
    });
  }
});

/** The clients an order names that the profile does not describe: they are sent with youtubei.js's own (older) identity. */
export function undescribedClients(profile: PlatformProfile): string[] {
  const named = [...profile.youtube.order.captions, ...profile.youtube.order.audio];
  return [...new Set(named.filter((name) => !Object.hasOwn(profile.youtube.clients, name)))];
}

export type PlatformProfile = z.infer<typeof platformProfileSchema>;
export type InnertubeClientProfile = z.infer<typeof innertubeClientSchema>;
export type BrowserIdentity = z.infer<typeof browserIdentitySchema>;
