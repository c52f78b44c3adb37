/** MCP progress notifications only increase (issue 27.5), whatever the work reports. */
import { describe, expect, it } from 'vitest';
import { increasingProgress } from '../../src/surfaces/mcp/toolset.js';
import type { JobProgress } from '../../src/jobs/jobs.js';

function sent(reports: JobProgress[]): JobProgress[] {
  const out: JobProgress[] = [];
  const report = increasingProgress((p) => out.push(p));
  for (const p of reports) report(p);
  return out;
}

describe('increasingProgress', () => {
  it("turns a speech-to-text call's repeated zeros into steps below the first chunk, and keeps the messages", () => {
    const out = sent([
      { done: 0, message: 'downloading media' },
      { done: 0, message: 'converting audio' },
      { done: 0, total: 3, message: 'transcribing' },
      { done: 1, total: 3, message: 'transcribing' },
      { done: 2, total: 3, message: 'transcribing' },
      { done: 3, total: 3, message: 'transcribing' },
    ]);
    expect(out.map((p) => p.done)).toEqual([0, 0.5, 0.75, 1, 2, 3]);
    expect(out.map((p) => p.message)).toEqual(['downloading media', 'converting audio', 'transcribing', 'transcribing', 'transcribing', 'transcribing']);
  });

  it("drops a crawl's repeated last count, and a count that went back comes on as a step above the last", () => {
    expect(sent([{ done: 1, total: 5 }, { done: 3, total: 5 }, { done: 2, total: 5 }, { done: 5, total: 5 }, { done: 5, total: 5 }]).map((p) => p.done)).toEqual([1, 3, 3.5, 5]);
  });

  it('stays strictly increasing over a long run of repeats', () => {
    const out = sent(Array.from({ length: 200 }, () => ({ done: 7 })));
    for (let i = 1; i < out.length; i++) expect(out[i].done).toBeGreaterThan(out[i - 1].done);
    for (const p of out) expect(p.done).toBeLessThan(8);
  });
});
