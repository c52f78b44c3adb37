/** The limits on PDF and Word documents that scrape, crawl and metadata pass to web/. */
import type { Config } from '../config.js';
import type { DocumentSettings } from '../web/document-pool.js';

export function documentSettings(config: Config): DocumentSettings {
  return { maxBytes: config.GLEANER_DOCUMENT_MAX_BYTES, timeoutMs: config.GLEANER_DOCUMENT_TIMEOUT_MS };
}
