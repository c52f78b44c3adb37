/**
 * Screenshots of web_scrape (web/render/screenshot.ts) are kept in the store for SCREENSHOT_KEPT_MS,
 * under an id nobody can guess, and read back only by the key (account) that took them: REST gets a URL
 * to fetch the PNG (`GET /v1/web/screenshots/{id}`, this file's operation); MCP gets the image as a
 * block of the tool result as well (surfaces/mcp/toolset.ts). Another key, or an expired id, is 404
 * alike, so an id says nothing about whose it is.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { GleanerError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { Screenshot } from '../web/render/screenshot.js';
import { defineOperation, type OperationContext } from './define.js';
import { FREE_LOOKUP } from './lookups.js';

/** How long a screenshot can be fetched after the scrape that took it. */
export const SCREENSHOT_KEPT_MS = 60 * 60_000;
export const SCREENSHOT_PATH = '/v1/web/screenshots';

const ID = /^[A-Za-z0-9_-]{22}$/;
const storeKey = (id: string) => `screenshot:${id}`;

interface KeptScreenshot {
  owner: string;
  /** The PNG, base64 (the store keeps JSON). */
  png: string;
  width: number;
  height: number;
}

/** Keeps the screenshot for its owner; what the reply says of it. */
export async function keepScreenshot(ctx: OperationContext, shot: Screenshot): Promise<{ url: string; width: number; height: number; expiresAt: string }> {
  const id = randomBytes(16).toString('base64url');
  const kept: KeptScreenshot = { owner: ctx.account.id, png: shot.png.toString('base64'), width: shot.width, height: shot.height };
  // Expired screenshots (up to 5 MB each) are freed as new ones are kept, so the store does not grow with them.
  await ctx.services.store.sweepExpired(storeKey(''));
  await ctx.services.store.set(storeKey(id), kept, SCREENSHOT_KEPT_MS);
  return { url: `${ctx.origin ?? ''}${SCREENSHOT_PATH}/${id}`, width: shot.width, height: shot.height, expiresAt: new Date(Date.now() + SCREENSHOT_KEPT_MS).toISOString() };
}

/** The PNG (base64) behind a screenshot URL or id, when it is `owner`'s and still kept. */
export async function readScreenshot(store: Store, urlOrId: string, owner: string): Promise<string | undefined> {
  const id = urlOrId.slice(urlOrId.lastIndexOf('/') + 1);
  if (!ID.test(id)) return undefined;
  const kept = await store.get<KeptScreenshot>(storeKey(id));
  return kept && kept.owner === owner ? kept.png : undefined;
}

export const webScreenshot = defineOperation({
  name: 'web_screenshot',
  title: 'A screenshot of a scraped page',
  description: `The PNG a web_scrape with \`screenshot\` took, for ${SCREENSHOT_KEPT_MS / 60_000} minutes after it, to the same API key only. Free.`,
  http: { method: 'GET', path: `${SCREENSHOT_PATH}/{id}`, binary: 'image/png' },
  input: z.object({ id: z.string().min(1).max(100) }),
  output: z.object({ contentType: z.literal('image/png'), data: z.string().describe('The PNG, base64 (REST sends the bytes)') }),
  ...FREE_LOOKUP,
  // MCP has the image in web_scrape's own result.
  restOnly: true,
  async run(input, ctx) {
    const png = await readScreenshot(ctx.services.store, input.id, ctx.account.id);
    if (!png) throw new GleanerError('NOT_FOUND', `No screenshot ${input.id} for this key: screenshots are kept ${SCREENSHOT_KEPT_MS / 60_000} minutes and read only by the key that took them.`);
    return { contentType: 'image/png' as const, data: png };
  },
});
