/**
 * One document reader: a Node process of its own (document-child.ts), reading one document at a
 * time. A process, not a thread, because a thread's heap limit leaves out ArrayBuffers (where
 * inflated streams and ZIP parts live) and a thread's memory stays with the server after it ends.
 * A process is bounded as a whole and gives everything back when it exits:
 *
 * - its V8 heap by --max-old-space-size (the process dies, not the server);
 * - on Linux, everything it allocates (heap, ArrayBuffers, native memory) by RLIMIT_DATA, set with
 *   the shell's `ulimit -d` before Node starts to what a reader maps at start plus READER_MEMORY_MB:
 *   an allocation past it fails inside the reader;
 * - its resident memory watched from here every 50 ms (/proc), the reader killed when it passes;
 * - the deadline, an abort by the caller, and a reader left large after a document end it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DocumentOutcome, DocumentTask, ReaderReady } from './document-worker.js';
import { READER_MEMORY_MB } from './document-read.js';
import { dataSizeMb, residentMemory } from './process-memory.js';
import { deadline } from '../deadline.js';


export { READER_MEMORY_MB };

/** The heap within READER_MEMORY_MB; pdf.js needs about 150 MB for a 100-page book. */
const HEAP_MB = 768;
const WATCH_EVERY_MS = 50;
/**
 * A reader holding more than this after a document is ended, so the memory goes back to the system; or
 * having mapped this much past its reservation, so the next document has all of READER_MEMORY_MB.
 */
const RECYCLE_ABOVE_MB = 512;
/** An idle reader exits after this long; the next document starts a new one. */
const IDLE_MS = 30_000;
/** Starting a reader (Node, then pdf.js) takes a second or two, far longer on a loaded machine; past this it has failed. */
const START_MS = 120_000;

export type StopReason = 'deadline' | 'memory' | 'aborted' | 'crashed';

/** The reader did not finish the document. */
export class ReaderStopped extends Error {
  override name = 'ReaderStopped';
  constructor(
    readonly reason: StopReason,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * The data limit a reader starts under, while it loads its libraries: only a backstop. Once loaded, the
 * reader lowers its own limit to what it has mapped then plus what a document may use (document-child.ts):
 * V8 reserves a different amount by Node version and by this limit, so the limit is measured, not assumed.
 */
const LOADING_LIMIT_MB = 4096;

function command(): [string, string[]] {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(fromSources ? './document-child.ts' : './document-child.js', import.meta.url));
  const node = [`--max-old-space-size=${HEAP_MB}`, ...(fromSources ? ['--import', import.meta.resolve('tsx')] : []), entry];
  if (process.platform !== 'linux') return [process.execPath, node];
  // `ulimit -d` takes kilobytes; if the server's own limit is lower it stays (the watch still holds).
  return ['/bin/sh', ['-c', `ulimit -d ${LOADING_LIMIT_MB * 1024} 2>/dev/null; exec "$0" "$@"`, process.execPath, ...node]];
}

export class DocumentProcess {
  private readonly child: ChildProcess;
  private exited = false;
  /** Killed and not yet gone: no longer given documents. */
  private ending = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private current: { settle: (outcome: DocumentOutcome | ReaderStopped) => void } | undefined;
  /** Taken for a document, from the call on (a new reader is taken before it is ready). */
  private claimed = false;
  private killedFor: StopReason | undefined;
  /** Documents this reader has finished. */
  private documents = 0;
  /** What the reader had mapped when it was ready (its data limit is this plus a document's share). */
  private readyDataMb: number | null = null;
  /** Settles when the reader has loaded its libraries (or is gone). */
  private readonly started: Promise<boolean>;

  constructor() {
    const [file, args] = command();
    // The reader's stdout goes to stderr: stdout is the MCP channel in stdio mode.
    this.child = spawn(file, args, { stdio: ['ignore', 2, 'inherit', 'ipc'], serialization: 'advanced' });
    this.started = new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), START_MS);
      this.child.once('message', () => {
        clearTimeout(timer);
        resolve(true);
      });
      this.child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    this.child.on('message', (outcome: DocumentOutcome | ReaderReady) => {
      if ('ready' in outcome) this.readyDataMb = outcome.dataMb;
      else this.current?.settle(outcome);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      clearTimeout(this.idleTimer);
      const reason = this.killedFor ?? (signal === 'SIGABRT' || signal === 'SIGTRAP' || code === 134 ? 'memory' : 'crashed');
      this.current?.settle(new ReaderStopped(reason, `the reader exited (${signal ?? `code ${code}`})`));
    });
    this.child.on('error', () => undefined); // a failed spawn also ends in 'exit'
    this.idle();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited && !this.ending;
  }

  get busy(): boolean {
    return this.claimed;
  }

  /** Has read documents before: what they left behind may be why a document ran out of memory. */
  get used(): boolean {
    return this.documents > 0;
  }

  /**
   * Reads one document within `timeoutMs`, counted once the reader is ready; rejects with
   * ReaderStopped when the reader did not finish it (and is then gone).
   */
  async run(task: DocumentTask, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<DocumentOutcome> {
    if (!this.alive || this.claimed) throw new ReaderStopped('crashed', 'the reader is not available');
    this.claimed = true;
    clearTimeout(this.idleTimer);
    this.child.ref();
    (this.child.channel as { ref?: () => void } | null | undefined)?.ref?.();
    if (!(await this.started)) {
      this.claimed = false;
      this.stop();
      throw new ReaderStopped('crashed', 'the reader did not start');
    }
    const limit = deadline(limits.timeoutMs);
    return new Promise<DocumentOutcome>((resolve, reject) => {
      const stop = (reason: StopReason) => {
        this.killedFor ??= reason;
        this.stop();
      };
      const onDeadline = () => stop('deadline');
      const onAbort = () => stop('aborted');
      const watch = setInterval(() => {
        const memory = this.child.pid ? residentMemory(this.child.pid) : null;
        if (memory && memory.rssMb > READER_MEMORY_MB) stop('memory');
      }, WATCH_EVERY_MS);
      limit.signal.addEventListener('abort', onDeadline, { once: true });
      limits.signal?.addEventListener('abort', onAbort, { once: true });
      this.current = {
        settle: (outcome) => {
          clearInterval(watch);
          limit.clear();
          limit.signal.removeEventListener('abort', onDeadline);
          limits.signal?.removeEventListener('abort', onAbort);
          this.current = undefined;
          this.claimed = false;
          if (outcome instanceof ReaderStopped) reject(outcome);
          else resolve(outcome);
          this.afterTask();
        },
      };
      if (limit.signal.aborted) return onDeadline();
      if (limits.signal?.aborted) return onAbort();
      this.child.send(task, (error) => {
        if (error) stop('crashed');
      });
    });
  }

  /** Ends the reader (at shutdown, or when it is no longer wanted). */
  stop(): void {
    this.ending = true;
    clearTimeout(this.idleTimer);
    if (!this.exited) this.child.kill('SIGKILL');
  }

  private afterTask(): void {
    if (this.exited) return;
    this.documents++;
    const memory = this.child.pid ? residentMemory(this.child.pid) : null;
    if (memory && memory.rssMb > RECYCLE_ABOVE_MB) return this.stop();
    const dataMb = this.child.pid ? dataSizeMb(this.child.pid) : null;
    if (dataMb !== null && this.readyDataMb !== null && dataMb - this.readyDataMb > RECYCLE_ABOVE_MB) return this.stop();
    this.idle();
  }

  /** An idle reader keeps no one waiting at exit, and leaves after IDLE_MS. */
  private idle(): void {
    this.child.unref();
    (this.child.channel as { unref?: () => void } | null | undefined)?.unref?.();
    this.idleTimer = setTimeout(() => this.stop(), IDLE_MS);
    this.idleTimer.unref();
  }
}
