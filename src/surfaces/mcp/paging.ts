/**
 * Long MCP tool replies in pages of about GLEANER_MCP_PAGE_CHARS (or the call's maxChars), each
 * saying how to get the next: `nextCursor`, passed back as `cursor` to the same tool. The first call
 * runs (and is charged) as on REST; a reply of several pages is kept in the store for PAGES_KEPT_MS,
 * and its further pages are read from there without a charge. REST stays whole.
 *
 * A cursor alone is a whole call (it names the reply, where the next page starts, the page size and
 * the time range), so paged tools list no required input: strict clients let `{ cursor }` through.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import stringify from 'safe-stable-stringify';
import type { App } from '../../app.js';
import { GleanerError } from '../../errors.js';
import { publicJob } from '../../jobs/jobs.js';
import type { AnyOperation } from '../../operations/define.js';
import type { AccountRecord } from '../../accounts/accounts.js';
import { describeIssues } from '../../gate/validation.js';
import { pageAt, pageBody, type PageSpan, type Range } from './pages.js';
import type { Layout, Path } from '../text/layout.js';
import { COMPACTED, isCompacted, isTimed, shapeOf, type Shape } from '../text/shapes.js';
import { clock } from '../../ai/chat.js';
import { readableBlocks, type Listed } from './readable.js';
import { chapterRange, chaptersOf, namesChapter, type RangeRequest } from './chapter-range.js';

/** How long the pages of a reply stay readable through its cursor. */
export const PAGES_KEPT_MS = 30 * 60_000;
/** A reply larger than this (as JSON) is not kept: its later pages need the call again. */
const MAX_KEPT_CHARS = 32_000_000;
const MIN_PAGE_CHARS = 1_000;
const MAX_PAGE_CHARS = 100_000;

/** Seconds, or a chapter (its number or title, see chapter-range.ts). */
const timePoint = z.union([z.number().min(0).max(1e7), z.string().trim().min(1).max(200)]);

const pagingArgs = z
  .object({
    cursor: z.string().min(1).max(1_000).optional(),
    maxChars: z.number().int().min(MIN_PAGE_CHARS).max(MAX_PAGE_CHARS).optional(),
    from: timePoint.optional(),
    to: timePoint.optional(),
  })
  .refine((a) => typeof a.from !== 'number' || typeof a.to !== 'number' || a.from < a.to, { path: ['to'], message: 'must be after from' });

/** A call's paging arguments: from/to in seconds, or chapters until the reply's chapters resolve them. */
export type PageRequest = z.infer<typeof pagingArgs>;

/** A request's page size settled and its range in seconds. */
type Paging = { maxChars: number; range: Range };

/**
 * A cursor: tool, entry (a hash of the arguments), page start, page size, time range, job id, and a tag
 * of its key (naming no account: it tells another key's cursor from an expired one).
 */
const cursorPayload = z
  .object({
    v: z.literal(1),
    t: z.string().max(100),
    e: z.string().regex(/^[0-9a-f]{32}$/),
    p: z.number().int().min(0).max(10_000_000),
    m: z.number().int().min(MIN_PAGE_CHARS).max(MAX_PAGE_CHARS).optional(),
    f: z.number().min(0).optional(),
    u: z.number().min(0).optional(),
    j: z.string().max(200).optional(),
    k: z.string().regex(/^[0-9a-f]{12}$/).optional(),
  })
  .strict();
type Cursor = z.infer<typeof cursorPayload>;

const badCursor = (why: string) => new GleanerError('INVALID_REQUEST', `Invalid cursor: ${why}. Pass the nextCursor of the previous page unchanged, or call again without cursor.`);

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string, tool: string): Cursor {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(text) ? JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  const cursor = cursorPayload.safeParse(parsed);
  if (!cursor.success) throw badCursor('it is not a cursor this server gave');
  if (cursor.data.t !== tool) throw badCursor(`it belongs to ${cursor.data.t}, not ${tool}`);
  return cursor.data;
}

/** The tag of a key's cursors: not reversible to the account id, the same on every process. */
function keyTag(accountId: string): string {
  return createHash('sha256').update(`gleaner-mcp-cursor\0${accountId}`).digest('hex').slice(0, 12);
}

/** Whether `value` is what the operation takes for `name` when it is left out. */
function isDefault(operation: AnyOperation, name: string, value: unknown): boolean {
  const field = operation.input instanceof z.ZodObject ? (operation.input.shape as Record<string, z.ZodType>)[name] : undefined;
  if (!field) return false;
  const parsed = field.safeParse(undefined);
  return parsed.success && parsed.data !== undefined && stringify(parsed.data) === stringify(value);
}

/** The result `_meta` key of a page's full data (its segments, links), which hosts hand to an app, not to the model. */
export const PAGE_META = 'gleaner/page';

export interface PagedOutcome {
  /** structuredContent: the reply, or for a transcript or a page its facts without the words the text block carries. */
  body: unknown;
  /** The page as data (the reply with its long fields cut to this page), when `body` leaves its words out. */
  page?: unknown;
  /** The text: the reply (or page), then what to do next; two blocks, as a lone one some clients (LangChain's) merge with structuredContent. */
  blocks: string[];
}

/** A copy of `value` without `path` (objects on the way copied; a missing path leaves it as it is). */
function omit(value: unknown, path: Path): unknown {
  if (!value || typeof value !== 'object' || !(path[0] in value)) return value;
  const { [path[0]]: inner, ...rest } = value as Record<string, unknown>;
  return path.length === 1 ? rest : { ...rest, [path[0]]: omit(inner, path.slice(1)) };
}

/** A range in seconds: chapters named in it resolved against the reply's chapters. */
function inSeconds(body: unknown, range: RangeRequest): Range {
  return namesChapter(range) ? chapterRange(range, chaptersOf(body)) : { from: range.from as number | undefined, to: range.to as number | undefined };
}

/** `listed` says which tools the server lists, so a reply's text points only at those. */
export function createPager(app: App, listed: Listed = () => true) {
  const shape = (operation: AnyOperation): Shape | undefined => shapeOf(operation, (name) => app.gate.operation(name));
  const defaultChars = app.config.GLEANER_MCP_PAGE_CHARS;
  const store = app.services.store;
  const keyOf = (accountId: string, entry: string) => `mcp:pages:${accountId}:${entry}`;

  // Stable JSON (object keys in order), so equal arguments hash alike whatever order they came in.
  const entryOf = (operation: AnyOperation, args: unknown): string => {
    const parsed = operation.input.safeParse(args ?? {});
    return createHash('sha256')
      .update(`${operation.name}\0${stringify(parsed.success ? parsed.data : args)}`)
      .digest('hex')
      .slice(0, 32);
  };

  /** Whether a cursor's arguments are its call's: none, or only the defaults (some clients fill them into every call), pass. */
  function consistent(operation: AnyOperation, args: unknown, entry: string): boolean {
    if (!args || typeof args !== 'object') return true;
    const given = Object.entries(args as Record<string, unknown>).filter(([name, value]) => value !== undefined && !isDefault(operation, name, value));
    return given.length === 0 || entryOf(operation, args) === entry;
  }

  /** `waitedSeconds`: the reply is a job handle returned after waiting this long. */
  function render(operation: AnyOperation, body: Record<string, unknown>, layout: Layout | undefined, span: PageSpan | undefined, paging: Paging, cursor?: string, waitedSeconds?: number): PagedOutcome {
    // A reply with nothing to page (an account, a video's facts, a running job) is shown whole:
    // in words where it has a reading of its own, else as its JSON.
    if (!layout || !span) return { body, blocks: readableBlocks(operation, body, listed, waitedSeconds) ?? [JSON.stringify(body)] };
    const { from, to } = paging.range;
    const ranged = from !== undefined || to !== undefined;
    const whole = span.start === 0 && span.next === undefined && !ranged;
    const page = { ...(whole ? body : pageBody(body, layout, span)), ...(cursor ? { nextCursor: cursor } : {}) };
    const text = layout.atoms.slice(span.start, span.end).map((atom) => atom.text).join('') || (ranged ? '(nothing in this part)' : '');
    const part = ranged ? ` of the part from ${clock((from ?? 0) * 1000)}${to === undefined ? '' : ` to ${clock(to * 1000)}`}` : '';
    // Every page says where it stands, the only page too: the footer is the text's second block.
    const footer = cursor
      ? `[Page ${span.number} of ${span.of}${part}. For the next page call ${operation.name} with cursor="${cursor}".]`
      : whole
        ? '[Page 1 of 1: the whole reply.]'
        : `[Page ${span.number} of ${span.of}${part}: the last.]`;
    const blocks = [`${layout.header}${text}`, footer];
    return isCompacted(operation) ? { body: COMPACTED.reduce<unknown>(omit, page), page, blocks } : { body: page, blocks };
  }

  function pageOf(operation: AnyOperation, body: unknown, paging: Paging, at: number) {
    let layout: Layout | undefined;
    try {
      layout = body && typeof body === 'object' ? shape(operation)?.(body as Record<string, unknown>) : undefined;
    } catch (error) {
      // A reply the shape did not expect is shown whole rather than failing a call already charged.
      app.log.error({ err: error, tool: operation.name }, 'could not lay out a reply in pages');
    }
    if (layout && at > layout.atoms.length) throw badCursor('it points past the end of the reply');
    return { layout, span: layout ? pageAt(layout.atoms, at, paging.maxChars, paging.range) : undefined };
  }

  /** The cursor of the page after `span` (none after the last): `cursor` with where that page starts and how it is cut. */
  const cursorAfter = (cursor: Omit<Cursor, 'p' | 'm' | 'f' | 'u'>, span: PageSpan, paging: Paging) =>
    span.next === undefined ? undefined : encodeCursor({ ...cursor, p: span.next, m: paging.maxChars, f: paging.range.from, u: paging.range.to });

  return {
    /** The input schema a tool lists over MCP: the operation's, plus cursor and maxChars (and from/to for transcripts). */
    inputSchema(operation: AnyOperation, schema: Record<string, unknown>): Record<string, unknown> {
      if (!shape(operation)) return schema;
      // Seconds, or a chapter's number or title (a union, not a type array: some clients refuse those).
      const point = { anyOf: [{ type: 'number' }, { type: 'string' }], description: 'Seconds or chapter' };
      const properties = {
        ...(schema.properties as Record<string, unknown>),
        // Kept small: every listed tool costs context. The reply's footer says how to use the cursor.
        cursor: { type: 'string', description: 'nextCursor of the last page' },
        maxChars: { type: 'integer', minimum: MIN_PAGE_CHARS, maximum: MAX_PAGE_CHARS, description: 'Page size' },
        ...(isTimed(operation) ? { from: point, to: point } : {}),
      };
      // No `required`: a next page is asked with the cursor alone, and clients that check arguments
      // against this schema (LangChain) refuse a call that leaves out a required one. The first
      // call's own checks (REST's, unchanged) still refuse a missing url: "url is required".
      const { required: _required, ...rest } = schema;
      return { ...rest, properties };
    },

    /** The output schema a tool lists over MCP: the reply's, plus nextCursor. */
    outputSchema(operation: AnyOperation, schema: Record<string, unknown>): Record<string, unknown> {
      if (!shape(operation)) return schema;
      // A listed output names the reply's own fields only (schemas.ts): the compacted ones go at its top.
      const dropped = new Set(isCompacted(operation) ? COMPACTED.map((path) => path.join('.')) : []);
      const withCursor = (branch: Record<string, unknown>): Record<string, unknown> => {
        if (branch.type !== 'object' || !branch.properties) return branch;
        const kept = Object.entries(branch.properties as object).filter(([name]) => !dropped.has(name));
        return { ...branch, properties: { ...Object.fromEntries(kept), nextCursor: { type: 'string' } } };
      };
      return Array.isArray(schema.anyOf) ? { ...schema, anyOf: (schema.anyOf as Record<string, unknown>[]).map(withCursor) } : withCursor(schema);
    },

    /** Takes the paging arguments out of a call's arguments (INVALID_REQUEST when they are wrong). */
    split(operation: AnyOperation, args: unknown): { args: unknown; request?: PageRequest } {
      if (!shape(operation) || !args || typeof args !== 'object' || Array.isArray(args)) return { args };
      const { cursor, maxChars, from, to, ...rest } = args as Record<string, unknown>;
      const parsed = pagingArgs.safeParse({ cursor, maxChars, from, to });
      if (!parsed.success) throw new GleanerError('INVALID_REQUEST', describeIssues(parsed.error.issues));
      const paging = parsed.data;
      if (paging.from !== undefined || paging.to !== undefined) {
        if (!isTimed(operation)) throw new GleanerError('INVALID_REQUEST', `from and to page transcripts by time; ${operation.name} takes cursor and maxChars.`);
        if (rest.text === true || rest.timestamps === false) throw new GleanerError('INVALID_REQUEST', 'from and to need timed segments: leave out text=true and timestamps=false, or page with cursor.');
      }
      return { args: rest, request: paging };
    },

    /** Checks a call's chapter range against its reply (a chapter the video lacks is a 400): run before the call is charged. */
    resolve(body: unknown, request: PageRequest | undefined): void {
      if (request && namesChapter(request)) chapterRange(request, chaptersOf(body));
    },

    /** The first page of a reply the call just produced (kept for its next pages when there are any). */
    async first(operation: AnyOperation, args: unknown, body: unknown, request: PageRequest | undefined, accountId: string, waitedSeconds?: number): Promise<PagedOutcome> {
      const paging: Paging = { range: inSeconds(body, request ?? {}), maxChars: request?.maxChars ?? defaultChars };
      const { layout, span } = pageOf(operation, body, paging, 0);
      if (span?.next === undefined) return render(operation, body as Record<string, unknown>, layout, span, paging, undefined, waitedSeconds);
      const entry = entryOf(operation, args);
      // Kept for its next pages (a job's can also be read back from its record, see next).
      if (JSON.stringify(body).length <= MAX_KEPT_CHARS) {
        await store.set(keyOf(accountId, entry), body, PAGES_KEPT_MS).catch((error) => app.log.warn({ err: error, tool: operation.name }, 'could not keep the pages of a reply'));
      }
      const jobId = (body as { jobId?: unknown }).jobId;
      const cursor = { v: 1 as const, t: operation.name, e: entry, j: typeof jobId === 'string' ? jobId : undefined, k: keyTag(accountId) };
      return render(operation, body as Record<string, unknown>, layout, span, paging, cursorAfter(cursor, span, paging));
    },

    /** The page a cursor points at, from the kept reply: no charge, one request of the key's page rate. */
    async next(operation: AnyOperation, args: unknown, request: PageRequest, account: AccountRecord): Promise<PagedOutcome> {
      const cursor = decodeCursor(request.cursor!, operation.name);
      // Checked before anything is read: a cursor given to another key reads nothing, and says so
      // without telling whether that key's reply is still kept.
      if (cursor.k !== undefined && cursor.k !== keyTag(account.id)) {
        throw new GleanerError(
          'INVALID_REQUEST',
          `This cursor was given to another API key and is not valid for this one. Call ${operation.name} without cursor, with the arguments of the call you want (a new, charged call).`,
        );
      }
      if (!consistent(operation, args, cursor.e)) throw badCursor('it belongs to a call with other arguments (pass it alone, or with the arguments of the call that gave it)');
      await app.gate.admitPage(account);
      let body = await store.get<unknown>(keyOf(account.id, cursor.e));
      if (body === undefined && cursor.j) {
        const job = await app.services.jobs.get(cursor.j, account.id).catch(() => undefined);
        if (job?.result) body = publicJob(job);
      }
      if (body === undefined) {
        throw new GleanerError(
          'INVALID_REQUEST',
          `The pages of this reply are no longer kept (they are kept ${PAGES_KEPT_MS / 60_000} minutes). Call ${operation.name} again without cursor to start over; that call is charged as a new one.`,
        );
      }
      const range = request.from !== undefined || request.to !== undefined ? inSeconds(body, request) : { from: cursor.f, to: cursor.u };
      // The page size of the call that began the paging, unless this call asks for another.
      const paging: Paging = { maxChars: request.maxChars ?? cursor.m ?? defaultChars, range };
      const { layout, span } = pageOf(operation, body, paging, cursor.p);
      if (!layout || !span) throw badCursor('the reply it points into has no pages');
      return render(operation, body as Record<string, unknown>, layout, span, paging, cursorAfter(cursor, span, paging));
    },
  };
}
