/**
 * The keeps of calls charged from a block of credits (sqlite-leases.ts), made durable in a journal
 * file of this process, one append and one fdatasync for each group of them, done by a thread of its
 * own (keep-journal-worker.ts). Before, each keep was a commit on the store's thread: on the wasm
 * engine four fsyncs (journal, its header, the database, the journal's truncation), plus the commit in
 * flight; on node:sqlite one fsync, but behind the thread's queue. On a disk where an fsync takes 5 ms
 * a charged call waited 20 to 40 ms for its keep (docs/ledger.md).
 *
 * The store's thread folds the journal into the lease rows about once a second (SqliteLedger.foldKeeps):
 * one transaction takes the kept credits out of the blocks (they are in the usage already), marks
 * each segment folded and numbers the fold; then the segment files go. The usage this process shows
 * adds what it kept that the step's view of the file had not folded yet (by that number), so it is
 * exact; other processes see the charges with the next fold.
 *
 * A kill -9: every keep answered is in the journal (answered after its fdatasync); a line a crash cut
 * short was never answered and is skipped. The sweep that returns a dead process's blocks folds its
 * journal first, in the same transaction (SqliteLedger.settle): what was answered stays charged, the
 * rest comes back. A segment folded whose file a crash left behind is marked in the file
 * (`folded_keeps`) and never counted twice. A block is answered only after a durable commit
 * (SqliteLedger.claim), so no keep can outlive the block it was taken from.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { JournalThread } from './keep-journal-thread.js';
import path from 'node:path';
import { StoreFileError } from './sqlite.js';

/** The folder of the journals, beside the store file (like SQLite's own `-journal`). */
export const keepsDir = (storeFile: string) => `${storeFile}.keeps`;

/** A process's journal files are named after its owner id, hashed: a bounded, safe file name. */
export const ownerTag = (owner: string) => createHash('sha256').update(owner).digest('hex').slice(0, 16);

/** The longest a group of keeps waits for others on their way (a fraction of a slow disk's fdatasync). */
const GATHER_MS = 1;

const SEGMENT = /^([0-9a-f]{16})\.(\d+)\.keeps$/;

/** The credits kept by lease in a segment's text; only complete lines count (the rest was never answered). */
export function parseSegment(text: string): Map<string, number> {
  const kept = new Map<string, number>();
  for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
    const tab = line.indexOf('\t');
    if (tab <= 0) continue;
    const amount = Number(line.slice(tab + 1));
    if (!Number.isSafeInteger(amount) || amount <= 0) continue;
    const lease = line.slice(0, tab);
    kept.set(lease, (kept.get(lease) ?? 0) + amount);
  }
  return kept;
}

/** The segment files of an owner's journal (of every owner when undefined), oldest first. */
export function segmentsOf(storeFile: string, owner?: string): { name: string; file: string }[] {
  const tag = owner === undefined ? undefined : ownerTag(owner);
  let names: string[];
  try {
    names = fs.readdirSync(keepsDir(storeFile));
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, match: SEGMENT.exec(name) }))
    .filter(({ match }) => match && (tag === undefined || match[1] === tag))
    .sort((a, b) => Number(a.match![2]) - Number(b.match![2]))
    .map(({ name }) => ({ name, file: path.join(keepsDir(storeFile), name) }));
}

/** One journal file: what was appended to it and made durable. */
export interface Segment {
  name: string;
  file: string;
  /** Credits kept, by lease (what the fold takes out of the lease rows). */
  kept: Map<string, number>;
  /** The same credits by account (what the usage shown adds until the fold). */
  byAccount: Map<string, number>;
  /** The fold that took it (SqliteLedger.foldKeeps); undefined while none has. */
  fold?: number;
}

interface Waiting {
  lease: string;
  account: string;
  amount: number;
  resolve: () => void;
  reject: (error: StoreFileError) => void;
}

function add(map: Map<string, number>, key: string, amount: number): void {
  const next = (map.get(key) ?? 0) + amount;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}

/**
 * One owner's journal (accounts.ts: one a process). Its groups go to the journal's thread, never to
 * the store's thread, which may be in a commit (four fsyncs on the wasm engine).
 */
export class KeepJournal {
  /** Segments appended to, oldest first; the last takes appends unless it was sealed. */
  private segments: Segment[] = [];
  private open?: Segment;
  private seq = 0;
  private waiting: Waiting[] = [];
  /** Appended, not yet on the disk, by account: counted in the usage shown already, like a reservation. */
  private readonly unsynced = new Map<string, number>();
  private flushing = false;
  private sealWaiters: { fold: number; resolve: (segments: Segment[]) => void }[] = [];

  /** Wakes a group waiting for the keeps still on their way (GATHER_MS). */
  private gathered?: () => void;

  constructor(
    private readonly storeFile: string,
    private readonly owner: string,
    private readonly thread: JournalThread,
    /** Whether calls that will keep soon hold credits now (sqlite-leases.ts): worth a short wait for. */
    private readonly moreComing: () => boolean = () => false,
  ) {}

  /** Resolves once the keep is on the disk; rejects when the journal cannot be written. */
  append(lease: string, account: string, amount: number): Promise<void> {
    add(this.unsynced, account, amount);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ lease, account, amount, resolve, reject });
      if (this.gathered && !this.moreComing()) this.gathered();
      if (!this.flushing) {
        this.flushing = true;
        void this.flush();
      }
    });
  }

  /** Credits of `account` kept here that a step which saw fold `foldedThrough` did not count. */
  unfolded(account: string, foldedThrough: number): number {
    let credits = this.unsynced.get(account) ?? 0;
    for (const segment of this.segments) if (segment.fold === undefined || segment.fold > foldedThrough) credits += segment.byAccount.get(account) ?? 0;
    return credits;
  }

  /** Whether anything is kept and not folded. */
  get pending(): boolean {
    return this.waiting.length > 0 || this.flushing || this.segments.some((segment) => segment.fold === undefined);
  }

  /**
   * The segments no fold has taken, numbered `fold`: the one being appended to is closed once the
   * group being written is on the disk (between two groups), and later keeps go to a new one.
   */
  seal(fold: number): Promise<Segment[]> {
    if (!this.flushing) return Promise.resolve(this.take(fold));
    return new Promise((resolve) => this.sealWaiters.push({ fold, resolve }));
  }

  private take(fold: number): Segment[] {
    this.open = undefined;
    const taken = this.segments.filter((segment) => segment.fold === undefined);
    for (const segment of taken) segment.fold = fold;
    return taken;
  }

  /** Between two groups: the seals asked for meanwhile, done now, before the next group picks a segment. */
  private sealNow(): void {
    for (const { fold, resolve } of this.sealWaiters.splice(0)) resolve(this.take(fold));
  }

  /** A fold that did not commit: its segments wait for the next. */
  putBack(segments: Segment[]): void {
    for (const segment of segments) segment.fold = undefined;
  }

  /** After the fold's commit, and once no step answered before it can still be counting: the files go. */
  async remove(segments: Segment[]): Promise<void> {
    this.segments = this.segments.filter((segment) => !segments.includes(segment));
    for (const segment of segments) {
      await this.thread.close(segment.file).catch(() => undefined);
      await fsp.rm(segment.file, { force: true });
    }
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        // Calls that hold credits will keep soon: wait a moment for them, so that they share this
        // fdatasync instead of waiting for it and then for one of their own (PostgreSQL's commit_delay).
        // Without it, a steady load splits into two cohorts that each wait two fdatasyncs.
        if (this.moreComing()) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, GATHER_MS);
            this.gathered = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.gathered = undefined;
        }
        const group = this.waiting;
        this.waiting = [];
        let segment: Segment | undefined;
        try {
          segment = this.segment();
          await this.thread.append(segment.file, Buffer.from(group.map((item) => `${item.lease}\t${item.amount}\n`).join('')));
        } catch (error) {
          // A segment a write failed in may hold part of this group: no more appends to it (the fold
          // counts what was answered, from memory), the next group goes to a new one.
          if (segment && this.open === segment) this.open = undefined;
          for (const item of group) {
            add(this.unsynced, item.account, -item.amount);
            item.reject(new StoreFileError(keepsDir(this.storeFile), `a charge could not be kept (${(error as Error).message})`));
          }
          this.sealNow();
          continue;
        }
        for (const item of group) {
          add(segment.kept, item.lease, item.amount);
          add(segment.byAccount, item.account, item.amount);
          add(this.unsynced, item.account, -item.amount);
          item.resolve();
        }
        this.sealNow();
      }
    } finally {
      this.flushing = false;
      this.sealNow();
    }
  }

  /** The segment appends go to; its file is made by the journal's thread with the first of them. */
  private segment(): Segment {
    if (this.open) return this.open;
    const name = `${ownerTag(this.owner)}.${++this.seq}.keeps`;
    const segment: Segment = { name, file: path.join(keepsDir(this.storeFile), name), kept: new Map(), byAccount: new Map() };
    this.segments.push(segment);
    this.open = segment;
    return segment;
  }
}
