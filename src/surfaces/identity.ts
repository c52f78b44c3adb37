import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };

export const SERVER_IDENTITY = {
  name: 'gleaner',
  version: pkg.version,
  instructions:
    'Gleaner turns videos and web pages into text and data: transcripts (YouTube, TikTok, Instagram, X, Facebook, video files), metadata, YouTube search and listings, web scrape, map and crawl. Each call costs credits (see the account tool).',
};
