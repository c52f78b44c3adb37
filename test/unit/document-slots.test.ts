/** The fair share of document readers between keys, and the bounded wait (src/web/document-slots.ts). */
import { describe, expect, it } from 'vitest';
import { DocumentSlots } from '../../src/web/document-slots.js';
import { GleanerError } from '../../src/errors.js';

const ask = (slots: DocumentSlots, owner: string, waitMs = 60_000, signal?: AbortSignal) => slots.acquire({ owner, waitMs, signal, what: `a PDF of ${owner}` });

describe('document slots', () => {
  it('one key holds at most its share, so another key finds a slot while the first waits for more', async () => {
    const slots = new DocumentSlots(2, 1);
    const first = await ask(slots, 'crawler');
    let second = false;
    const crawlerNext = ask(slots, 'crawler').then((release) => {
      second = true;
      return release;
    });
    const other = await ask(slots, 'other');
    expect(slots.holding('other')).toBe(1);
    expect(second).toBe(false);
    first();
    (await crawlerNext)();
    other();
    expect(slots.holding('crawler') + slots.holding('other')).toBe(0);
  });

  it('a freed slot goes to the waiting key holding the fewest, not to the one that queued first', async () => {
    const slots = new DocumentSlots(2, 2);
    const a1 = await ask(slots, 'a');
    const a2 = await ask(slots, 'a');
    const order: string[] = [];
    const a3 = ask(slots, 'a').then((release) => (order.push('a'), release));
    const b1 = ask(slots, 'b').then((release) => (order.push('b'), release));
    a1();
    (await b1)();
    a2();
    (await a3)();
    expect(order).toEqual(['b', 'a']);
  });

  it('a key kept out by others is refused after the wait bound: SERVER_BUSY, 503, Retry-After, a message saying nothing was charged', async () => {
    const slots = new DocumentSlots(1, 1);
    const held = await ask(slots, 'a');
    const refused = await ask(slots, 'b', 50).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GleanerError);
    expect(refused).toMatchObject({ code: 'SERVER_BUSY', status: 503, headers: { 'Retry-After': '1' } });
    expect((refused as Error).message).toMatch(/busy with other calls for 1 s, so a PDF of b was not read; nothing was charged/);
    expect(slots.queued).toBe(0);
    held();
    (await ask(slots, 'b'))();
  });

  it('a key waiting behind its own document waits on past the bound (a crawl of many PDFs)', async () => {
    const slots = new DocumentSlots(2, 1);
    const own = await ask(slots, 'crawler');
    const next = ask(slots, 'crawler', 20);
    // Several bounds pass while its own document is read; the event that ends the wait is the release.
    await new Promise<void>((resolve) => setTimeout(resolve, 100));
    expect(slots.queued).toBe(1);
    own();
    (await next)();
  });

  it('a caller that goes away leaves the queue', async () => {
    const slots = new DocumentSlots(1, 1);
    const held = await ask(slots, 'a');
    const controller = new AbortController();
    const waiting = ask(slots, 'b', 60_000, controller.signal).catch((error: unknown) => error);
    controller.abort(new Error('client gone'));
    expect(await waiting).toMatchObject({ message: 'client gone' });
    expect(slots.queued).toBe(0);
    held();
  });
});
