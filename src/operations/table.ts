/** The table of operations: every surface is generated from this list. */
import type { AnyOperation } from './define.js';
import { account, jobStatus } from './account.js';
import { webCrawl, webMap, webScrape } from './web.js';
import { metadataOperation } from './metadata.js';
import { facebookTranscript, instagramTranscript, tiktokTranscript, videoTranscript, xTranscript } from './media.js';

export const OPERATIONS: AnyOperation[] = [
  account,
  jobStatus,
  metadataOperation,
  tiktokTranscript,
  instagramTranscript,
  xTranscript,
  facebookTranscript,
  videoTranscript,
  webScrape,
  webMap,
  webCrawl,
];
