/**
 * The platform profile: what the platforms change month to month (InnerTube client versions and
 * user agents, browser identities, query and document ids, header sets), as data an operator can
 * replace without a release (GLEANER_PLATFORM_PROFILE). Every entry says when and against which
 * public source it was last checked, so a stale entry is visible, not guessed at.
 */
import { Constants } from 'youtubei.js';
import { z } from 'zod';

/**
 * The client keys youtubei.js can build a request for. A profile client is one of them (the profile
 * changes what it sends, it cannot add a client); an order may name any of them, described or not.
 */
export const YOUTUBEI_CLIENTS: readonly string[] = Constants.SUPPORTED_CLIENTS;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD');

/** When an entry was last checked, and the public page or commit it was checked against. */
export const checkedSchema = z.strictObject({
  date: isoDate,
  source: z.string().min(1),
});

const headerSet = z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name'), z.string());

/** One InnerTube client, keyed in the profile by the name youtubei.js knows it by (ANDROID, IOS...). */
export const innertubeClientSchema = z.strictObject({
  /** context.client.clientName as YouTube expects it (IOS, ANDROID, VISIONOS, WEB, ...). */
  clientName: z.string().min(1),
  /** X-Youtube-Client-Name: the numeric id of clientName. */
  clientNameId: z.number().int().positive(),
  clientVersion: z.string().min(1),
  /** Sent as User-Agent and context.client.userAgent; absent leaves youtubei.js's. */
  userAgent: z.string().min(1).optional(),
  device: z
    .strictObject({
      make: z.string().min(1).optional(),
      model: z.string().min(1).optional(),
      osName: z.string().min(1).optional(),
      osVersion: z.string().min(1).optional(),
      androidSdkVersion: z.number().int().positive().optional(),
    })
    .default({}),
  /** The `c=` a caption or stream URL of this client carries (what a PO token is minted for). */
  urlClientName: z.string().min(1),
  /** Whether this client's caption URLs, or its stream URLs, answer nothing without a PO token. */
  poToken: z.strictObject({ captions: z.boolean(), streams: z.boolean() }),
  checked: checkedSchema,
});

/** A browser as the platforms' pages see it: its user agent with the client hints and fetch metadata that go with it. */
export const browserIdentitySchema = z.strictObject({
  userAgent: z.string().min(1),
  /** Sent with every page request (Accept, Accept-Language, Sec-CH-UA*, Sec-Fetch-*, ...). */
  headers: headerSet,
  checked: checkedSchema,
});

export const platformProfileSchema = z.strictObject({
  /** The day the profile as a whole was last reviewed (the doctor warns when the built-in one is old). */
  date: isoDate,
  youtube: z.strictObject({
    clients: z.record(z.string().regex(/^[A-Z_]+$/, 'must be an upper-case InnerTube client name such as ANDROID'), innertubeClientSchema),
    /** The clients asked, in order, for caption tracks, and for a direct audio URL (speech to text). */
    order: z.strictObject({
      captions: z.array(z.string()).min(1),
      audio: z.array(z.string()).min(1),
      checked: checkedSchema,
    }),
  }),
  browsers: z.strictObject({ desktop: browserIdentitySchema, mobile: browserIdentitySchema }),
  x: z.strictObject({
    /** The public web client's bearer token (guest tokens are asked with it). */
    bearerToken: z.string().min(20),
    /** The GraphQL query id of TweetResultByRestId. */
    tweetQueryId: z.string().regex(/^[A-Za-z0-9_-]+$/),
    checked: checkedSchema,
  }),
  instagram: z.strictObject({
    /** doc_id of the logged-out post query (PolarisLoggedOutDesktopWWWPostRootContentQuery). */
    docId: z.string().regex(/^\d+$/),
    /** X-IG-App-ID of the web app, when the page names none. */
    appId: z.string().regex(/^\d+$/),
    /** X-ASBD-ID. */
    asbdId: z.string().regex(/^\d+$/),
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
