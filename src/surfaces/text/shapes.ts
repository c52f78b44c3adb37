/**
 * How each reply shape reads as text and where its long content is: transcripts (segments, or one
 * string), a scraped page (markdown, then its links), crawls, search results, video lists,
 * batches and video analyses. Which shape a tool's reply has follows from its operation's output schema.
 */
import type { AnyOperation } from '../../operations/define.js';
import { analysisResult, crawlResult, mapReply, scrapeBatchResult, scrapeReply, searchReply, channelVideosReply, playlistVideosReply, transcriptBatchReply, transcriptReply, videoBatchReply } from '../../operations/outputs.js';
import { readReply } from '../../operations/read.js';
import { transcriptSearchReply } from '../../operations/transcript-search.js';
import { layoutText, pieces, type Atom, type Layout, type Path } from './layout.js';
import { clock } from '../../ai/chat.js';

type Reply = Record<string, any>;
/** Lays a reply out for paging, or undefined when it has nothing to page (a running job, an error item). */
export type Shape = (reply: Reply) => Layout | undefined;

/** One text field as atoms; `lead` goes before its first piece (an item's heading). */
function textAtoms(text: string, field: Path, item?: { list: Path; index: number }, lead = ''): Atom[] {
  return pieces(text).map((piece, i) => ({ text: i === 0 ? lead + piece : piece, field, piece, ...item }));
}

/** One atom per item of the list at `list`, each one line; `heading` goes before the first. */
function itemAtoms<T>(items: T[], list: Path, line: (item: T, index: number) => string, heading = ''): Atom[] {
  return items.map((item, index) => ({ text: `${index === 0 ? heading : ''}${line(item, index)}`, list, index }));
}

/**
 * "Speaker 1: " before a segment whose speaker differs from the one before: the endpoint's labels ("A",
 * "SPEAKER_00") numbered by first appearance, so a model reads who speaks without the provider's spelling.
 */
function speakerLeads(segments: Array<{ speaker?: string }>): string[] {
  const numbers = new Map<string, number>();
  return segments.map((segment, i) => {
    if (!segment.speaker || segment.speaker === segments[i - 1]?.speaker) return '';
    if (!numbers.has(segment.speaker)) numbers.set(segment.speaker, numbers.size + 1);
    return `Speaker ${numbers.get(segment.speaker)}: `;
  });
}

/** Transcript content at `field` (segments or a string), as lines "[mm:ss] text" where timed. */
function contentAtoms(content: unknown, field: Path, item?: { list: Path; index: number }, lead = ''): Atom[] {
  if (typeof content === 'string') return textAtoms(content, field, item, lead);
  const segments = content as Array<{ text: string; offset?: number; speaker?: string }>;
  const speakers = speakerLeads(segments);
  return segments.map((segment, i) => ({
    text: `${i === 0 ? lead : ''}${segment.offset === undefined ? '' : `[${clock(segment.offset)}] `}${speakers[i]}${segment.text}\n`,
    ...(item ? { ...item, field, piece: segment } : { list: field, index: i }),
    ...(segment.offset === undefined ? {} : { time: segment.offset }),
  }));
}

function transcriptHeader(t: Reply): string {
  const parts = [
    `Transcript${t.videoId ? ` of ${t.platform ?? 'video'} ${t.videoId}` : ''}`,
    `language ${t.lang}${t.translatedTo ? ` (translated by ${t.translatedBy})` : ''}`,
    `${Number(t.durationMinutes).toFixed(1)} min`,
    t.aiGenerated ? 'speech to text' : 'captions',
  ];
  return `${parts.join(' · ')}\n\n`;
}

/** A heading before the first timed line of each chapter (text only: the segments stay as they are). */
function withChapters(atoms: Atom[], chapters: Array<{ title: string; start: number }> | undefined): Atom[] {
  if (!chapters?.length) return atoms;
  let next = 0;
  return atoms.map((atom) => {
    if (atom.time === undefined) return atom;
    let headings = '';
    while (next < chapters.length && chapters[next].start * 1000 <= atom.time) headings += `${next === 0 ? '' : '\n'}## ${chapters[next++].title} [${clock(chapters[next - 1].start * 1000)}]\n`;
    return headings ? { ...atom, text: headings + atom.text } : atom;
  });
}

const transcript: Shape = (reply) => ({ header: transcriptHeader(reply), atoms: withChapters(contentAtoms(reply.content, ['content']), reply.chapters) });

/** The change-tracking line of a scraped page (web_scrape's changeTracking), when it was asked. */
function changeLine(page: Reply): string {
  const change = page.changeTracking as { changeStatus: string; previousScrapeAt: string | null } | undefined;
  if (!change) return '';
  return change.previousScrapeAt ? `Change since your scrape of ${change.previousScrapeAt}: ${change.changeStatus}\n` : 'Change: new (first tracked scrape of this page)\n';
}

const DIFF_FIELD = ['changeTracking', 'diff'];

/**
 * A model's answer (a page answer, a video analysis) after the lines naming what it answers and the
 * model, and its notes. A text answer (given its field) pages like any text; a JSON answer (a schema
 * was given) is one value, shown whole, pretty-printed: a model's answer is short, and half a JSON value is no answer.
 */
function answer(heading: string, notes: string[] | undefined, value: unknown, field?: Path): Layout {
  const header = `${heading}${(notes ?? []).map((note) => `Note: ${note}\n`).join('')}\n`;
  return { header, atoms: field ? textAtoms(value as string, field) : [{ text: JSON.stringify(value, null, 2) ?? 'null' }] };
}

/** A page answer (web_scrape's format summary, answer or json). */
const pageAnswer: Shape = (reply) => {
  const heading = `# ${reply.title ?? reply.url}\n${reply.url}\n${reply.format} by ${reply.model}\n`;
  return reply.format === 'json' ? answer(heading, reply.warnings, reply.data) : answer(heading, reply.warnings, reply.content, ['content']);
};

const scrape: Shape = (reply) => {
  if (reply.model !== undefined) return pageAnswer(reply);
  const links = itemAtoms(reply.urls as string[], ['urls'], (url) => `- ${url}\n`, '\n\nLinks on the page:\n');
  const diff = reply.changeTracking?.diff as string | undefined;
  const diffAtoms = diff ? textAtoms(diff, DIFF_FIELD, undefined, 'Diff of the main text:\n') : [];
  // The blank line after the diff is text only: the diff field stays exactly what was computed.
  if (diffAtoms.length) diffAtoms[diffAtoms.length - 1] = { ...diffAtoms[diffAtoms.length - 1], text: `${diffAtoms[diffAtoms.length - 1].text}\n` };
  return { header: `# ${reply.title ?? reply.url}\n${reply.url}\n${changeLine(reply)}\n`, atoms: [...diffAtoms, ...textAtoms(reply.content, ['content']), ...links] };
};

/** One page of a batch or a crawl: `## title`, its URL and `notes`, its content split, then a blank line. */
function pageItemAtoms(page: Reply, field: Path, at: { list: Path; index: number }, notes = ''): Atom[] {
  const atoms = textAtoms(page.content, field, at, `## ${page.title ?? page.url}\n${page.url}\n${notes}\n`);
  // The blank line between two pages is text only: each page's content stays exactly what was scraped.
  atoms[atoms.length - 1] = { ...atoms[atoms.length - 1], text: `${atoms[atoms.length - 1].text}\n\n` };
  return atoms;
}

/** A batch scrape: each URL's page (its content split) or its error, in the order given. */
const scrapeBatch: Shape = (reply) => {
  if (!Array.isArray(reply.results)) return undefined;
  const atoms = (reply.results as Reply[]).flatMap((item, index): Atom[] => {
    const at = { list: ['results'], index };
    if (item.error) return [{ text: `## ${item.url}\nFailed: ${item.error.code}: ${item.error.message}\n\n`, ...at }];
    const page = item.page as Reply;
    const diff = page.changeTracking?.diff ? `Diff of the main text:\n${page.changeTracking.diff}\n` : '';
    return pageItemAtoms(page, ['page', 'content'], at, `${changeLine(page)}${diff}`);
  });
  const stats = reply.stats ? `: ${reply.stats.succeeded} pages, ${reply.stats.failed} failed, ${reply.creditsUsed} credits used${reply.stoppedOn ? ' (credits ran out)' : ''}` : '';
  return { header: `Batch scrape of ${reply.results.length} URLs${stats}\n\n`, atoms };
};

const map: Shape = (reply) => ({ header: `${reply.urls.length} URLs\n\n`, atoms: itemAtoms(reply.urls as string[], ['urls'], (url) => `${url}\n`) });

/** A crawl's pages then its failures (web_crawl's result; web_crawl_results shows a part of them). */
const crawl: Shape = (reply) => {
  if (!Array.isArray(reply.pages)) return undefined;
  const pages = (reply.pages as Reply[]).flatMap((page, index) => pageItemAtoms(page, ['content'], { list: ['pages'], index }));
  const failed = itemAtoms((reply.failed ?? []) as Reply[], ['failed'], (item) => `- ${item.url}: ${item.error.code} ${item.error.message}\n`, 'Failed:\n');
  const stats = reply.stats ? `: ${reply.stats.pages} pages, ${reply.stats.failed} failed${reply.stoppedOn ? ' (stopped: credits ran out)' : ''}` : '';
  return { header: `Crawl${reply.url ? ` of ${reply.url}` : ''}${stats}\n\n`, atoms: [...pages, ...failed] };
};

function count(n: number | null | undefined, what: string): string | undefined {
  return n === null || n === undefined ? undefined : `${n.toLocaleString('en-US')} ${what}`;
}

function searchLine(item: Reply, index: number): string {
  const facts =
    item.type === 'video'
      ? [item.channel?.name, item.duration === null ? undefined : clock(item.duration * 1000), count(item.viewCount, 'views'), item.uploadDate ?? item.publishedText, `https://www.youtube.com/watch?v=${item.id}`]
      : item.type === 'channel'
        ? [item.handle, count(item.subscriberCount, 'subscribers'), count(item.videoCount, 'videos'), `https://www.youtube.com/channel/${item.id}`]
        : [item.channel?.name, count(item.videoCount, 'videos'), `https://www.youtube.com/playlist?list=${item.id}`];
  return `${index + 1}. [${item.type}] ${item.title ?? item.name ?? item.id} — ${facts.filter(Boolean).join(' · ')}\n`;
}

const search: Shape = (reply) => ({
  header: `YouTube search "${reply.query}": ${reply.results.length} results${reply.nextPageToken ? ' (more with pageToken)' : ''}\n\n`,
  atoms: itemAtoms(reply.results as Reply[], ['results'], searchLine),
});

const videoLists: Shape = (reply) => {
  const lists: Array<[string, string, (id: string) => string]> = [
    ['videoIds', 'Videos', (id) => `https://www.youtube.com/watch?v=${id}`],
    ['shortIds', 'Shorts', (id) => `https://www.youtube.com/shorts/${id}`],
    ['liveIds', 'Live', (id) => `https://www.youtube.com/watch?v=${id}`],
  ];
  const atoms = lists.flatMap(([key, title, link]) => itemAtoms(reply[key] as string[], [key], (id) => `- ${link(id)}\n`, `${title}:\n`));
  return { header: `${reply.channelId ? `Channel ${reply.channelId}` : `Playlist ${reply.playlistId}`}${reply.complete ? '' : ' (incomplete: YouTube stopped answering)'}\n\n`, atoms };
};

/** One result per video: a transcript (split by segment), a video's facts, or an error. */
const batch: Shape = (reply) => {
  if (!Array.isArray(reply.results)) return undefined;
  const atoms = (reply.results as Reply[]).flatMap((item, index): Atom[] => {
    const at = { list: ['results'], index };
    const lead = `## ${item.url ?? item.videoId}\n`;
    if (item.errorCode) return [{ text: `${lead}${item.errorCode}: ${item.message ?? ''}\n\n`, ...at }];
    if (item.transcript && item.transcript.content.length > 0) return contentAtoms(item.transcript.content, ['transcript', 'content'], at, lead + transcriptHeader(item.transcript));
    if (item.video) return [{ text: `${lead}${item.video.title ?? ''} — ${item.video.channel?.name ?? ''}${item.video.duration ? ` · ${clock(item.video.duration * 1000)}` : ''}\n\n`, ...at }];
    return [{ text: lead, ...at }];
  });
  return { header: `${reply.results.length} results${reply.creditsUsed === undefined ? '' : `, ${reply.creditsUsed} credits used`}\n\n`, atoms };
};

/** A video analysis: its answer after a line naming the video, the model and the frames. */
const analysis: Shape = (reply) => {
  const heading = `Analysis of ${reply.url} by ${reply.model}${reply.frames?.count ? ` · ${reply.frames.count} frames` : ''}\n`;
  return typeof reply.data === 'string' ? answer(heading, reply.notes, reply.data, ['data']) : answer(heading, reply.notes, reply.data);
};

/** A layout of the reply's `result` as a layout of the reply, under `header`. */
function underResult(layout: Layout, header: string): Layout {
  const within = (path: Path | undefined) => (path ? ['result', ...path] : undefined);
  return { header: `${header}${layout.header}`, atoms: layout.atoms.map((atom) => ({ ...atom, list: within(atom.list), field: atom.list ? atom.field : within(atom.field) })) };
}

/** A job reply pages its result by the shape of the operation that ran it. */
function job(inner: Shape): Shape {
  return (reply) => {
    // A completed job, or a cancelled crawl with the pages it got.
    if (!reply.result) return undefined;
    const layout = inner(reply.result);
    return layout && underResult(layout, `Job ${reply.jobId} (${reply.operation}) ${reply.status}\n`);
  };
}

/** `read` pages its result by the shape of the operation it routed to, under a line of the video's facts. */
const READ_ROUTE_SHAPES: Record<string, Shape> = { transcript, web_scrape: scrape, youtube_channel_videos: videoLists, youtube_playlist_videos: videoLists };

const read: Shape = (reply) => {
  const layout = READ_ROUTE_SHAPES[reply.route]?.(reply.result);
  if (!layout) return undefined;
  const video = reply.video as Reply | undefined;
  const facts = video
    ? [video.author?.name, video.durationSeconds ? clock(video.durationSeconds * 1000) : undefined, video.createdAt?.slice(0, 10), count(video.stats?.views, 'views')].filter(Boolean)
    : [];
  const title = reply.title && reply.route !== 'web_scrape' ? `# ${reply.title}\n` : '';
  return underResult(layout, `${title}${facts.length ? `${facts.join(' · ')}\n` : ''}(read as ${reply.route})\n`);
};

/** Search passages: numbered, each with its time, video title and link, then its lines quoted. */
const transcriptSearch: Shape = (reply) => {
  const quoted = (text: string) => text.split('\n').map((line) => `   > ${line}`).join('\n');
  const passages = itemAtoms(reply.passages as Reply[], ['passages'], (item, index) => `${index + 1}. [${item.time}] ${item.title ?? item.videoId} — ${item.link}\n${quoted(item.text)}\n\n`);
  const failed = itemAtoms(reply.failed as Reply[], ['failed'], (item) => `- ${item.url}: ${item.errorCode} ${item.message}\n`, 'Not searched:\n');
  const { searched, kept, fetched } = reply.videos;
  const header = `Search "${reply.query}" in ${searched} videos (${kept} kept, ${fetched} fetched, ${reply.creditsUsed} credits): ${reply.passages.length} passages\n\n`;
  return { header: passages.length ? header : `${header}No passage matches.\n`, atoms: [...passages, ...failed] };
};

const BY_OUTPUT = new Map<unknown, Shape>([
  [transcriptReply, transcript],
  [scrapeReply, scrape],
  [scrapeBatchResult, scrapeBatch],
  [mapReply, map],
  [crawlResult, crawl],
  [searchReply, search],
  [channelVideosReply, videoLists],
  [playlistVideosReply, videoLists],
  [transcriptBatchReply, batch],
  [videoBatchReply, batch],
  [analysisResult, analysis],
  [readReply, read],
  [transcriptSearchReply, transcriptSearch],
]);

/** The views of finished jobs in the Supadata SDK's shapes, whose outputs are their own. */
const BY_NAME: Record<string, Shape> = { web_crawl_results: crawl, youtube_batch_results: batch };

/** The lookups that answer with any job: its shape is its operation's, found at call time. */
const JOB_VIEWS = new Set(['job_status', 'job_cancel']);

/** Reply shapes by operation. */
export function shapeOf(operation: AnyOperation, operations: (name: string) => AnyOperation | undefined): Shape | undefined {
  if (JOB_VIEWS.has(operation.name)) {
    return (reply) => {
      const ran = operations(reply.operation);
      const inner = ran && !JOB_VIEWS.has(ran.name) ? (BY_OUTPUT.get(ran.output) ?? BY_NAME[ran.name]) : undefined;
      return inner ? job(inner)(reply) : undefined;
    };
  }
  const own = BY_OUTPUT.get(operation.output) ?? BY_NAME[operation.name];
  if (!own) return undefined;
  if (operation.kind === 'job') return job(own);
  // A sync operation that starts a job for some inputs replies with either.
  if (operation.jobWhen || operation.handsOffToJobs) return (reply) => ('jobId' in reply ? job(own)(reply) : own(reply));
  return own;
}

/** The fields a transcript or page reply leaves out of structuredContent, at its top or under `result` (read, a job). */
export const COMPACTED: Path[] = [['content'], ['urls'], DIFF_FIELD].flatMap((path) => [path, ['result', ...path]]);

/** Whether the tool's replies are transcripts or pages, whose words only the text block carries. */
export function isCompacted(operation: AnyOperation): boolean {
  return operation.output === transcriptReply || operation.output === scrapeReply || operation.output === readReply;
}

/** Shapes that have timed atoms, so a caller may ask for a time range. */
export function isTimed(operation: AnyOperation): boolean {
  return operation.output === transcriptReply;
}

/** A reply as a person reads it whole (the console's view of a job's result); undefined for a reply without a shape. */
export function replyText(operation: AnyOperation, reply: Reply, operations: (name: string) => AnyOperation | undefined): string | undefined {
  const layout = shapeOf(operation, operations)?.(reply);
  return layout && layoutText(layout);
}
