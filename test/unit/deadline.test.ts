/**
 * Deadlines that fire whatever the garbage collector does (src/deadline.ts, issue 39). On Node 20,
 * `AbortSignal.any([AbortSignal.timeout(ms), other])` never fires once a collection has run; each
 * shape of wait Gleaner builds is run here with collections forced while it waits, and must end by
 * its deadline's own abort while the other signal never fires. A wait that hangs is turned into a
 * failure by the test's limit, not by a clock in an assertion.
 */
import { EventEmitter, getEventListeners, once } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deadline, deadlineAt, type Deadline } from '../../src/deadline.js';
import { deadlineRace } from '../../src/web/render/deadline.js';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

/** Runs `wait` with full collections forced every few milliseconds until it settles. */
async function underCollections<T>(wait: () => Promise<T>): Promise<T> {
  const collector = setInterval(collect, 5);
  try {
    return await wait();
  } finally {
    clearInterval(collector);
  }
}

/** The reason a wait ended with (the wait never resolves by itself). */
const reasonOf = (wait: Promise<unknown>) => wait.then(() => 'resolved', (error: unknown) => error);

const WAITS = 5;
const MS = 20;

/** Each shape of wait in src: what waits on the combined signal. */
const shapes: Record<string, (limit: Deadline) => Promise<unknown>> = {
  'a listener on the signal (a render, a page deadline)': (limit) =>
    new Promise((_, reject) => limit.signal.addEventListener('abort', () => reject(limit.signal.reason), { once: true })),
  'events.once with the signal (a job waited for)': (limit) => once(new EventEmitter(), 'never', { signal: limit.signal }).then(() => undefined, () => Promise.reject(limit.signal.reason)),
  'timers/promises with the signal (a retry backoff)': (limit) => sleep(3_600_000, undefined, { signal: limit.signal }).then(() => undefined, () => Promise.reject(limit.signal.reason)),
  'a browser call raced against it (deadlineRace)': (limit) => deadlineRace(new Promise<never>(() => undefined), limit.signal),
};

describe('deadlines under forced garbage collection', () => {
  for (const [shape, waitOn] of Object.entries(shapes)) {
    it(`${shape}: each of ${WAITS} combined waits ends by its deadline, the other signal never firing`, { timeout: 20_000 }, async () => {
      for (let i = 0; i < WAITS; i++) {
        const other = new AbortController();
        const reason = await underCollections(() => {
          // Held as src holds it (to clear it); in the old pattern the timeout signal inside was held by nothing.
          const limit = deadline(MS, other.signal);
          return reasonOf(waitOn(limit).finally(() => limit.clear()));
        });
        expect((reason as DOMException).name).toBe('TimeoutError');
        expect(other.signal.aborted).toBe(false);
        expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
      }
    });
  }

  it('a deadline with no other signal fires too', { timeout: 20_000 }, async () => {
    for (let i = 0; i < WAITS; i++) {
      const reason = await underCollections(() => reasonOf(shapes['a listener on the signal (a render, a page deadline)'](deadline(MS))));
      expect((reason as DOMException).name).toBe('TimeoutError');
    }
  });
});

describe('deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a source that aborts first ends the wait with its own reason, and the deadline is not taken for expired', () => {
    const caller = new AbortController();
    const limit = deadline(60_000, undefined, caller.signal);
    caller.abort(new Error('the caller left'));
    expect(limit.signal.aborted).toBe(true);
    expect((limit.signal.reason as Error).message).toBe('the caller left');
    expect(limit.expired).toBe(false);
  });

  it('a source already aborted aborts the deadline at once, adding no listener and no timer', () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    caller.abort('gone');
    const limit = deadline(60_000, caller.signal);
    expect(limit.signal.reason).toBe('gone');
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('its own time running out marks it expired, with a TimeoutError, and lets go of its sources', () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const limit = deadline(1_000, caller.signal);
    vi.advanceTimersByTime(999);
    expect(limit.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(limit.expired).toBe(true);
    expect((limit.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('clear() leaves no timer and no listener behind, so a long-lived signal gathers nothing over many waits', () => {
    vi.useFakeTimers();
    const server = new AbortController();
    for (let i = 0; i < 1_000; i++) deadline(30_000, server.signal).clear();
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(server.signal, 'abort')).toHaveLength(0);
  });

  it("many waits under way on one signal (a crawl's pages) draw no leak warning, and each ends with it", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const crawl = new AbortController();
      const waits = Array.from({ length: 40 }, () => deadline(30_000, crawl.signal));
      crawl.abort(new Error('cancelled'));
      expect(waits.every((wait) => wait.signal.aborted && !wait.expired)).toBe(true);
      expect(getEventListeners(crawl.signal, 'abort')).toHaveLength(0);
      // Node emits its warning on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('a deadline longer than one Node timer takes (24.8 days) waits it out rather than firing at once', () => {
    vi.useFakeTimers();
    const limit = deadline(2 ** 31 + 1_000);
    vi.advanceTimersByTime(2 ** 31 - 1);
    expect(limit.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1_001);
    expect(limit.expired).toBe(true);
  });

  it('no time (undefined, Infinity) means no timer: only the sources end it', () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const limit = deadlineAt(Number.POSITIVE_INFINITY, caller.signal);
    expect(vi.getTimerCount()).toBe(0);
    caller.abort('stop');
    expect(limit.signal.reason).toBe('stop');
  });
});

describe('the rule', () => {
  it('no file in src builds a wait with AbortSignal.timeout or AbortSignal.any (src/deadline.ts does it for them)', () => {
    const root = path.resolve(import.meta.dirname, '../../src');
    const files = (function walk(dir: string): string[] {
      return readdirSync(dir).flatMap((name) => {
        const full = path.join(dir, name);
        return statSync(full).isDirectory() ? walk(full) : full.endsWith('.ts') ? [full] : [];
      });
    })(root);
    const offenders = files
      .filter((file) => !file.endsWith(`${path.sep}src${path.sep}deadline.ts`))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) => (/AbortSignal\s*\.\s*(?:timeout|any)\s*\(/.test(line) ? [`${path.relative(root, file)}:${index + 1}`] : [])),
      );
    expect(offenders).toEqual([]);
  });
});
