/**
 * Gleaner's MCP Apps (io.modelcontextprotocol/ui, spec 2026-01-26): two `ui://` resources, each one
 * self-contained HTML document, and which tools name them. A host that renders apps reads the
 * resource and shows it beside the tool's result; a host without apps ignores `_meta.ui`, and the
 * result a model reads is the same either way.
 */
import { appDocument } from './bridge.js';
import { PLAYER, YOUTUBE_EMBED_ORIGIN } from './player.js';
import { READER } from './reader.js';

/** The MIME type the Apps spec gives an app's HTML. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

export interface AppResource {
  uri: string;
  name: string;
  description: string;
  html: string;
  /** The `_meta.ui` of the resource: its CSP (origins it may reach beyond its own inline content). */
  meta: { ui: { csp: { connectDomains: string[]; resourceDomains: string[]; frameDomains: string[] }; prefersBorder: boolean } };
}

export const TRANSCRIPT_PLAYER: AppResource = {
  uri: 'ui://gleaner/transcript-player.html',
  name: 'Transcript player',
  description: 'The video with its chapters and its transcript; click a line or a chapter to seek there.',
  html: appDocument('gleaner-transcript-player', 'Transcript player', [PLAYER], 'showTranscriptResult(result);'),
  // Only YouTube's embed: no script, style or image from anywhere else, no network requests.
  meta: { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [YOUTUBE_EMBED_ORIGIN] }, prefersBorder: true } },
};

export const PAGE_READER: AppResource = {
  uri: 'ui://gleaner/page-reader.html',
  name: 'Page reader',
  description: "A scraped page's text rendered, its links and its screenshot.",
  html: appDocument('gleaner-page-reader', 'Page reader', [READER], 'showPageResult(result);'),
  meta: { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true } },
};

/** `read` answers with a transcript or a page (or a channel's videos): one app showing whichever came. */
export const READ_VIEWER: AppResource = {
  uri: 'ui://gleaner/read-viewer.html',
  name: 'Transcript player and page reader',
  description: 'What read returned: a video as the transcript player, a page as the page reader.',
  html: appDocument('gleaner-read-viewer', 'Read', [PLAYER, READER], `
    const page = bridge.pageOf(result);
    const asPage = page.route === 'web_scrape';
    document.getElementById(asPage ? 'player' : 'reader').hidden = true;
    asPage ? showPageResult(result) : showTranscriptResult(result);`),
  meta: TRANSCRIPT_PLAYER.meta,
};

export const APPS: AppResource[] = [TRANSCRIPT_PLAYER, PAGE_READER, READ_VIEWER];

/** The tools whose replies are transcripts (or a `read`, which is a transcript or a page). */
const TRANSCRIPT_TOOLS = new Set(['transcript', 'youtube_transcript', 'tiktok_transcript', 'instagram_transcript', 'x_transcript', 'facebook_transcript', 'video_transcript', 'file_transcript']);

/** The app a tool names, if any. */
export function appOf(tool: string): AppResource | undefined {
  if (tool === 'read') return READ_VIEWER;
  if (TRANSCRIPT_TOOLS.has(tool)) return TRANSCRIPT_PLAYER;
  if (tool === 'web_scrape') return PAGE_READER;
  return undefined;
}

/** The resources/read answer for an app's URI, or undefined for another URI. */
export function readApp(uri: string) {
  const app = APPS.find((candidate) => candidate.uri === uri);
  return app && { contents: [{ uri: app.uri, mimeType: APP_MIME_TYPE, text: app.html, _meta: app.meta }] };
}
