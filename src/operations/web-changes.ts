/**
 * `changeTracking` on a scrape (and so on each page of a batch): the page's main text compared with
 * this key's last tracked scrape of it (web/changes.ts), answered as `changeTracking` on the reply.
 */
import { z } from 'zod';
import type { OperationContext } from './define.js';
import type { ScrapeResult } from '../web/scrape.js';
import { trackChange, type PageChange } from '../web/changes.js';

export const changeTracking = z.boolean().default(false).describe('Diff with your last scrape of the URL');

const DAY_MS = 86_400_000;

interface TrackedInput {
  url: string;
  format: string;
  onlyMainContent: boolean;
  noLinks: boolean;
  changeTracking: boolean;
}

/** The scrape reply, with `changeTracking` when it was asked for (and nothing kept when it was not). */
export async function withChanges<R extends ScrapeResult>(input: TrackedInput, ctx: OperationContext, result: R): Promise<R & { changeTracking?: PageChange }> {
  if (!input.changeTracking) return result;
  const change = await trackChange(ctx.services.store, {
    accountId: ctx.account.id,
    url: input.url,
    view: { format: input.format, onlyMainContent: input.onlyMainContent, noLinks: input.noLinks },
    text: result.content,
    keepMs: Math.round(ctx.services.config.GLEANER_CHANGE_TRACKING_DAYS * DAY_MS),
  });
  return { ...result, changeTracking: change };
}
