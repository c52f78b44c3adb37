/** The limits on PDF and Word documents that scrape, crawl and metadata pass to web/, and whose call it is. */
import type { DocumentSettings } from '../web/document-pool.js';
import type { OperationContext } from './define.js';

export function documentSettings(ctx: OperationContext): DocumentSettings {
  const config = ctx.services.config;
  // The key's share of the document readers is counted by its account id (one key, one account).
  return { maxBytes: config.GLEANER_DOCUMENT_MAX_BYTES, timeoutMs: config.GLEANER_DOCUMENT_TIMEOUT_MS, owner: ctx.account.id };
}
