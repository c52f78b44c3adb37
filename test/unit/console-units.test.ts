/** The console's pure parts: the usage log's bounds, the HTML escaping, the chart. */
import { describe, expect, it } from 'vitest';
import { addEvent, mergeUsage, KEEP_DAYS, RECENT_CALLS, type UsageEvent, type UsageRecord } from '../../src/accounts/usage.js';
import { html } from '../../src/surfaces/console/html.js';
import { lastDays, usageChart } from '../../src/surfaces/console/chart.js';
import { isOwner } from '../../src/accounts/roles.js';

const DAY = 86_400_000;

/** What the gate's events add to a record, as a process buffers and then writes them. */
function applyUsage(record: UsageRecord, events: Array<UsageEvent & { at: Date }>, now: Date): UsageRecord {
  const buffer: UsageRecord = { calls: [], days: {} };
  for (const { at, ...rest } of events) addEvent(buffer, rest, at);
  return mergeUsage(record, buffer, now);
}
const event = (at: Date, patch: Partial<UsageEvent> = {}): UsageEvent & { at: Date } => ({
  accountId: 'acct_1',
  operation: 'web_scrape',
  outcome: 'ok',
  credits: 1,
  counts: true,
  failed: false,
  at,
  ...patch,
});

describe('the usage log', () => {
  const now = new Date('2026-11-27T12:00:00Z');

  it('keeps the last RECENT_CALLS calls, and counts every call per day and operation', () => {
    const events = Array.from({ length: RECENT_CALLS + 30 }, (_, i) => event(new Date(now.getTime() - i * 1000), { requestId: `r${i}` })).reverse();
    const record = applyUsage({ calls: [], days: {} }, events, now);
    expect(record.calls).toHaveLength(RECENT_CALLS);
    expect(record.calls.at(-1)!.requestId).toBe('r0');
    expect(record.days['2026-11-27'].web_scrape).toEqual({ calls: RECENT_CALLS + 30, failed: 0, credits: RECENT_CALLS + 30 });
  });

  it("a flood between two writes keeps the buffer bounded and the day's figures exact", () => {
    const buffer: UsageRecord = { calls: [], days: {} };
    for (let i = 0; i < 10_000; i++) addEvent(buffer, event(now), now);
    expect(buffer.calls.length).toBeLessThanOrEqual(RECENT_CALLS * 2);
    const record = mergeUsage({ calls: [], days: {} }, buffer, now);
    expect(record.days['2026-11-27'].web_scrape.calls).toBe(10_000);
    expect(record.calls).toHaveLength(RECENT_CALLS);
  });

  it('drops days and calls older than KEEP_DAYS', () => {
    const old = new Date(now.getTime() - (KEEP_DAYS + 2) * DAY);
    const first = applyUsage({ calls: [], days: {} }, [event(old), event(new Date(now.getTime() - 2 * DAY))], old);
    expect(Object.keys(first.days)).toHaveLength(2);
    const later = applyUsage(first, [], now);
    expect(Object.keys(later.days)).toEqual([new Date(now.getTime() - 2 * DAY).toISOString().slice(0, 10)]);
    expect(later.calls).toHaveLength(1);
  });

  it('a job counts once when started and adds its credits when it ends; ids are cut', () => {
    const record = applyUsage(
      { calls: [], days: {} },
      [
        event(now, { operation: 'web_crawl', outcome: 'job started', credits: 0, jobId: 'j'.repeat(500) }),
        event(now, { operation: 'web_crawl', outcome: 'job completed', credits: 7, counts: false }),
        event(now, { operation: 'web_crawl', outcome: 'CREDITS_EXHAUSTED', credits: 0, failed: true }),
      ],
      now,
    );
    expect(record.days['2026-11-27'].web_crawl).toEqual({ calls: 2, failed: 1, credits: 7 });
    expect(record.calls[0].jobId).toHaveLength(64);
  });
});

describe('console HTML', () => {
  it('escapes every interpolated value, and keeps Html built by the same tag', () => {
    const name = '<script>alert(1)</script>"\'&';
    expect(html`<td title="${name}">${name}</td>`.text).toBe('<td title="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;">&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</td>');
    expect(html`<p>${html`<b>${'a<b'}</b>`}</p>`.text).toBe('<p><b>a&lt;b</b></p>');
  });

  it('draws one stacked bar a day, one rectangle per operation, no inline style', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const record: UsageRecord = {
      calls: [],
      days: { '2026-11-27': { web_scrape: { calls: 3, failed: 0, credits: 3 }, youtube_transcript: { calls: 1, failed: 0, credits: 1 } }, '2026-11-20': { web_scrape: { calls: 2, failed: 1, credits: 1 } } },
    };
    const svg = usageChart(record, lastDays(now, 14), 'calls').text;
    expect(svg.match(/<rect /g)).toHaveLength(3);
    expect(svg).toContain('class="s0"');
    expect(svg).toContain('youtube_transcript');
    expect(svg).not.toContain('style=');
    expect(usageChart({ calls: [], days: {} }, lastDays(now, 7), 'credits').text).toContain('No credits in this period');
  });
});

describe('owner keys', () => {
  it('an owner role, or the key an earlier serve made as owner; never a revoked key', () => {
    expect(isOwner({ name: '', plan: 'Free', role: 'owner' })).toBe(true);
    expect(isOwner({ name: 'owner', plan: 'Enterprise', role: 'member' })).toBe(false);
    expect(isOwner({ name: 'owner', plan: 'Enterprise' })).toBe(true);
    expect(isOwner({ name: 'owner', plan: 'Pro' })).toBe(false);
    expect(isOwner({ name: '', plan: 'Enterprise', role: 'owner', revokedAt: '2026-01-01T00:00:00Z' })).toBe(false);
  });
});
