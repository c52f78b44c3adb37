/**
 * PDF and Word documents are read on threads of their own, apart from the page extraction
 * threads: a 100-page PDF takes seconds, and a hostile one could take forever or fill the memory.
 * So every document runs under a deadline (the thread is terminated when it passes) and a heap
 * limit (the thread dies, not the server), and either ends as CONTENT_UNREADABLE (422).
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import pLimit from 'p-limit';
import { GleanerError } from '../errors.js';
import type { Metadata } from '../model/content.js';
import type { ContentFormat, ExtractedPage } from './extract.js';
import type { DocumentOutcome, DocumentTask } from './document-worker.js';

/** The heap one document thread may use; pdf.js needs about 150 MB for a 100-page book. */
const THREAD_HEAP_MB = 768;

const THREADS = Math.max(1, os.availableParallelism() - 1);

let pool: Piscina | undefined;

/**
 * Documents handed to the threads at once. The rest wait here, not in piscina's queue, so that a
 * document's deadline starts when a thread takes it: a crawl of many PDFs must not time out the
 * ones still waiting behind a long one.
 */
const slots = pLimit(THREADS);

function documentPool(): Piscina {
  if (pool) return pool;
  const fromSources = import.meta.url.endsWith('.ts');
  pool = new Piscina({
    filename: new URL(fromSources ? './document-worker.ts' : './document-worker.js', import.meta.url).href,
    maxThreads: THREADS,
    // Documents are rarer than pages: no thread waits idle for them.
    minThreads: 0,
    idleTimeout: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    execArgv: fromSources ? ['--import', import.meta.resolve('tsx')] : [],
  });
  return pool;
}

/** GLEANER_DOCUMENT_MAX_BYTES and GLEANER_DOCUMENT_TIMEOUT_MS, as the operations pass them on. */
export interface DocumentSettings {
  maxBytes?: number;
  /** Reading one document stops after this long (default 60 s, GLEANER_DOCUMENT_TIMEOUT_MS's default). */
  timeoutMs?: number;
}

interface DocumentLimits extends DocumentSettings {
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 60_000;

function run(task: DocumentTask, limits: DocumentLimits): Promise<DocumentOutcome> {
  return slots(() => {
    limits.signal?.throwIfAborted();
    return runNow(task, limits);
  });
}

async function runNow(task: DocumentTask, limits: DocumentLimits): Promise<DocumentOutcome> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = limits.signal ? AbortSignal.any([deadline, limits.signal]) : deadline;
  const kind = task.type === 'pdf' ? 'PDF' : 'Word document';
  try {
    // A copy of the bytes crosses to the thread; the fetched buffer may share memory with others.
    return (await documentPool().run(task, { signal })) as DocumentOutcome;
  } catch (error) {
    if (limits.signal?.aborted) throw limits.signal.reason ?? error;
    if (deadline.aborted) {
      throw new GleanerError('CONTENT_UNREADABLE', `Reading the ${kind} at ${task.url} took longer than ${timeoutMs / 1000} s (GLEANER_DOCUMENT_TIMEOUT_MS); it was stopped.`);
    }
    if ((error as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      throw new GleanerError('CONTENT_UNREADABLE', `Reading the ${kind} at ${task.url} needed more than the ${THREAD_HEAP_MB} MB a document may use; it was stopped.`);
    }
    throw error;
  }
}

function unreadable(outcome: DocumentOutcome): never {
  const failure = outcome as { unreadable: boolean; message: string };
  // A defect is an internal error (the message goes to the log as its cause, not to the caller).
  throw failure.unreadable ? new GleanerError('CONTENT_UNREADABLE', failure.message) : new Error(`Document thread failed: ${failure.message}`);
}

export async function readDocumentOffThread(task: DocumentTask & { want: ContentFormat }, limits: DocumentLimits): Promise<ExtractedPage> {
  const outcome = await run(task, limits);
  return outcome.ok && 'page' in outcome ? outcome.page : unreadable(outcome);
}

export async function documentMetadataOffThread(task: Omit<DocumentTask, 'want'>, limits: DocumentLimits): Promise<Metadata> {
  const outcome = await run({ ...task, want: 'metadata' }, limits);
  return outcome.ok && 'metadata' in outcome ? outcome.metadata : unreadable(outcome);
}

/** Stops the threads (at shutdown; the next use starts a new pool). */
export async function closeDocumentPool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
