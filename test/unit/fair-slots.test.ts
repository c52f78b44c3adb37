/** Render slots shared fairly between keys (web/fair-slots.ts). */
import { describe, expect, it } from 'vitest';
import { FairSlots } from '../../src/web/fair-slots.js';

describe('FairSlots', () => {
  it('one owner holds at most its share; another owner gets a free slot at once', async () => {
    const slots = new FairSlots(4, 2);
    const a1 = await slots.acquire('a');
    await slots.acquire('a');
    let third = false;
    const a3 = slots.acquire('a').then((release) => {
      third = true;
      return release;
    });
    const b1 = await slots.acquire('b');
    expect(slots.holding('a')).toBe(2);
    expect(slots.holding('b')).toBe(1);
    await Promise.resolve();
    expect(third).toBe(false);
    a1();
    (await a3)();
    b1();
    expect(slots.holding('b')).toBe(0);
  });

  it('a freed slot goes to the waiting owner holding fewest, not to the oldest waiter', async () => {
    const slots = new FairSlots(2, 2);
    const a1 = await slots.acquire('a');
    const a2 = await slots.acquire('a');
    const order: string[] = [];
    const waitA = slots.acquire('a').then((release) => (order.push('a'), release));
    const waitB = slots.acquire('b').then((release) => (order.push('b'), release));
    a1();
    await waitB;
    expect(order).toEqual(['b']);
    a2();
    await waitA;
    expect(order).toEqual(['b', 'a']);
  });

  it('a waiter whose signal aborts leaves the queue and takes no slot', async () => {
    const slots = new FairSlots(1, 1);
    const held = await slots.acquire('a');
    const controller = new AbortController();
    const waiting = slots.acquire('b', controller.signal);
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    held();
    const next = await slots.acquire('c');
    expect(slots.holding('b')).toBe(0);
    expect(slots.holding('c')).toBe(1);
    next();
  });
});
