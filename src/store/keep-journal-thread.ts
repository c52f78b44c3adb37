/**
 * The event loop's side of the journal's thread (keep-journal-worker.ts): one per process, started
 * on the first keep, holding the process open only while a write is on its way.
 */
import type { Worker } from 'node:worker_threads';
import { startThread } from './thread-script.js';
import type { JournalReply, JournalRequest } from './keep-journal-worker.js';

type Request = { file: string; bytes: Uint8Array } | { close: string };

export class JournalThread {
  private worker?: Worker;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 1;

  /** Appends `bytes` to `file` (made, with its folder, if need be); resolves once they are on the disk. */
  append(file: string, bytes: Uint8Array): Promise<void> {
    return this.send({ file, bytes });
  }

  /** Closes the thread's descriptor of `file` (before it is removed). */
  close(file: string): Promise<void> {
    return this.send({ close: file });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private send(request: Request): Promise<void> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    if (this.pending.size === 0) worker.ref();
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...request } as JournalRequest);
    });
  }

  private start(): Worker {
    const worker = startThread('keep-journal-worker', {});
    worker.unref();
    worker.on('message', (reply: JournalReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.error === undefined) waiting.resolve();
      else waiting.reject(new Error(reply.error));
    });
    const gone = (why: string) => {
      if (this.worker === worker) this.worker = undefined;
      for (const { reject } of this.pending.values()) reject(new Error(`the journal's thread stopped (${why})`));
      this.pending.clear();
    };
    worker.on('error', (error) => gone(error.message));
    worker.on('exit', (code) => gone(`exit code ${code}`));
    return worker;
  }
}
