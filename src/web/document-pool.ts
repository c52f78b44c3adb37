/**
 * PDF and Word documents are read in processes of their own (document-process.ts), apart from
 * the server and the page extraction threads: a 100-page PDF takes seconds, and a hostile one could
 * take forever or fill the memory. So every document runs under a deadline and a memory limit that
 * covers all of the reader's memory, and either ends as CONTENT_UNREADABLE (422), free.
 *
 * The readers are shared fairly between keys (document-slots.ts): one key's crawl of slow PDFs
 * leaves a reader free for another key, and a document that cannot get one in time is refused as
 * SERVER_BUSY (503), free, instead of waiting for minutes.
 */
import os from 'node:os';
import { GleanerError } from '../errors.js';
import type { Metadata } from '../model/content.js';
import type { ContentFormat, ExtractedPage } from './extract.js';
import type { DocumentOutcome, DocumentTask } from './document-worker.js';
import { DocumentProcess, READER_MEMORY_MB, ReaderStopped } from './document-process.js';
import { DocumentSlots } from './document-slots.js';

/** Readers at once: a core each but one, and at least two, so one is always there for a second key. */
const READERS = Math.max(2, os.availableParallelism() - 1);

/** One key holds all the readers but one: whoever comes next finds it free. */
const slots = new DocumentSlots(READERS, READERS - 1);

const readers: DocumentProcess[] = [];

/** An idle reader, or a new one (there are never more than READERS: each one is used under a slot). */
function reader(): DocumentProcess {
  for (let i = readers.length - 1; i >= 0; i--) if (!readers[i].alive) readers.splice(i, 1);
  return readers.find((candidate) => !candidate.busy) ?? fresh();
}

/** A new reader, in a slot whose reader is gone. */
function fresh(): DocumentProcess {
  const started = new DocumentProcess();
  readers.push(started);
  return started;
}

/** GLEANER_DOCUMENT_MAX_BYTES and GLEANER_DOCUMENT_TIMEOUT_MS, as the operations pass them on, and whose call it is. */
export interface DocumentSettings {
  maxBytes?: number;
  /** Reading one document stops after this long (default 60 s, GLEANER_DOCUMENT_TIMEOUT_MS's default). */
  timeoutMs?: number;
  /** The key (account) the document is read for: its fair share of the readers. */
  owner?: string;
}

interface DocumentLimits extends DocumentSettings {
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The longest wait for a reader: twice the time one document may take, so a key waits at most
 * for the documents of others already being read, not for a queue of them.
 */
const waitFor = (timeoutMs: number) => 2 * timeoutMs;

async function run(task: DocumentTask, limits: DocumentLimits): Promise<DocumentOutcome> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const kind = task.type === 'pdf' ? 'PDF' : 'Word document';
  // The deadline starts when a ready reader takes the document: documents waiting (as in a crawl
  // of many PDFs), and a reader starting, do not use up its time.
  const release = await slots.acquire({ owner: limits.owner ?? 'anonymous', waitMs: waitFor(timeoutMs), signal: limits.signal, what: `the ${kind} at ${task.url}` });
  try {
    const first = reader();
    const outcome = await first.run(task, { timeoutMs, signal: limits.signal }).catch((error: unknown) => error);
    // A reader that read documents before keeps some of their memory: a document it ran out of memory on
    // gets one more try in a fresh reader, so every document has all of READER_MEMORY_MB.
    const outOfMemory = outcome instanceof ReaderStopped ? outcome.reason === 'memory' : !(outcome as DocumentOutcome).ok && (outcome as { memory?: true }).memory === true;
    if (outOfMemory && first.used) {
      first.stop();
      return await fresh().run(task, { timeoutMs, signal: limits.signal });
    }
    if (outcome instanceof Error) throw outcome;
    return outcome as DocumentOutcome;
  } catch (error) {
    if (!(error instanceof ReaderStopped)) throw error;
    if (error.reason === 'aborted') throw limits.signal?.reason ?? error;
    if (error.reason === 'deadline') {
      throw new GleanerError('CONTENT_UNREADABLE', `Reading the ${kind} at ${task.url} took longer than ${timeoutMs / 1000} s (GLEANER_DOCUMENT_TIMEOUT_MS); it was stopped.`);
    }
    if (error.reason === 'memory') {
      throw new GleanerError('CONTENT_UNREADABLE', `Reading the ${kind} at ${task.url} needed more than the ${READER_MEMORY_MB} MB of memory a document may use; it was stopped.`);
    }
    throw new GleanerError('CONTENT_UNREADABLE', `Reading the ${kind} at ${task.url} stopped its reader (${error.message}); it could not be read.`);
  } finally {
    release();
  }
}

function unreadable(outcome: DocumentOutcome): never {
  const failure = outcome as { unreadable: boolean; message: string };
  // A defect is an internal error (the message goes to the log as its cause, not to the caller).
  throw failure.unreadable ? new GleanerError('CONTENT_UNREADABLE', failure.message) : new Error(`Document reader failed: ${failure.message}`);
}

export async function readDocumentOffThread(task: DocumentTask & { want: ContentFormat }, limits: DocumentLimits): Promise<ExtractedPage> {
  const outcome = await run(task, limits);
  return outcome.ok && 'page' in outcome ? outcome.page : unreadable(outcome);
}

export async function documentMetadataOffThread(task: Omit<DocumentTask, 'want'>, limits: DocumentLimits): Promise<Metadata> {
  const outcome = await run({ ...task, want: 'metadata' }, limits);
  return outcome.ok && 'metadata' in outcome ? outcome.metadata : unreadable(outcome);
}

/** The process ids of the readers now running (tests measure their memory). */
export function documentReaderPids(): number[] {
  return readers.filter((candidate) => candidate.alive && candidate.pid !== undefined).map((candidate) => candidate.pid as number);
}

/** Documents one key is reading now (tests and logs). */
export function documentsReadFor(owner: string): number {
  return slots.holding(owner);
}

/** Stops the readers (at shutdown; the next document starts new ones). */
export async function closeDocumentPool(): Promise<void> {
  for (const current of readers.splice(0)) current.stop();
}
