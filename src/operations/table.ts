/** The table of operations: every surface is generated from this list. */
import type { AnyOperation } from './define.js';
import { account, jobStatus } from './account.js';
import { webCrawl, webMap, webScrape } from './web.js';
import { webScrapeBatch, webScrapeBatchResults } from './web-batch.js';
import { webScreenshot } from './screenshots.js';
import { readOperation } from './read.js';
import { metadataOperation } from './metadata.js';
import { facebookTranscript, instagramTranscript, tiktokTranscript, videoTranscript, xTranscript } from './platform-transcripts.js';
import { transcriptOperation } from './transcript.js';
import { YOUTUBE_TRANSCRIPT_OPERATIONS } from './youtube-transcripts.js';
import { YOUTUBE_LISTING_OPERATIONS } from './youtube-listings.js';
import { videoAnalysis } from './analysis.js';
import { jobCancel, jobList } from './jobs.js';
import { SUPADATA_VIEWS } from './supadata.js';
import { WATCH_OPERATIONS } from './watches.js';
import { transcriptSearch } from './transcript-search.js';

export const OPERATIONS: AnyOperation[] = [
  readOperation,
  account,
  jobStatus,
  jobList,
  jobCancel,
  metadataOperation,
  webScrape,
  webScrapeBatch,
  webScrapeBatchResults,
  webScreenshot,
  webMap,
  webCrawl,
  transcriptOperation,
  transcriptSearch,
  ...YOUTUBE_TRANSCRIPT_OPERATIONS,
  ...YOUTUBE_LISTING_OPERATIONS,
  tiktokTranscript,
  instagramTranscript,
  xTranscript,
  facebookTranscript,
  videoTranscript,
  videoAnalysis,
  ...SUPADATA_VIEWS,
  ...WATCH_OPERATIONS,
];
