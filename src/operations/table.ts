/** The table of operations: every surface is generated from this list. */
import type { AnyOperation } from './define.js';
import { account, jobStatus } from './account.js';
import { webCrawl, webMap, webScrape } from './web.js';
import { metadataOperation } from './metadata.js';
import { facebookTranscript, instagramTranscript, tiktokTranscript, videoTranscript, xTranscript } from './media.js';
import { transcriptOperation } from './transcript.js';
import { YOUTUBE_OPERATIONS } from './youtube.js';
import { videoAnalysis } from './analysis.js';
import { jobCancel, jobList } from './jobs.js';
import { SUPADATA_VIEWS } from './supadata.js';

export const OPERATIONS: AnyOperation[] = [
  account,
  jobStatus,
  jobList,
  jobCancel,
  metadataOperation,
  webScrape,
  webMap,
  webCrawl,
  transcriptOperation,
  ...YOUTUBE_OPERATIONS,
  tiktokTranscript,
  instagramTranscript,
  xTranscript,
  facebookTranscript,
  videoTranscript,
  videoAnalysis,
  ...SUPADATA_VIEWS,
];
