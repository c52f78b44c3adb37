/** The pages about the signed-in key itself: the overview (plan, credits, rate) and its usage. */
import type { AccountRecord, Balance } from '../../accounts/accounts.js';
import { PLANS } from '../../accounts/plans.js';
import type { RateStatus } from '../../accounts/rate.js';
import { KEEP_DAYS, RECENT_CALLS, type UsageRecord } from '../../accounts/usage.js';
import { amount, html, when, type Html } from './html.js';
import { lastDays, operationsOf, usageChart, type Metric } from './chart.js';

export function overviewBody(account: AccountRecord, balance: Balance, rate: RateStatus, owner: boolean): Html {
  const plan = PLANS[account.plan];
  return html`<dl class="figures">
<div><dt>Plan</dt><dd id="plan">${account.plan}</dd></div>
<div><dt>Credits left this month</dt><dd id="credits-left">${amount(balance.remaining)}</dd></div>
<div><dt>Credits used this month</dt><dd id="credits-used">${amount(balance.used)}</dd></div>
<div><dt>Monthly allowance</dt><dd>${amount(balance.allowance)}</dd></div>
<div><dt>Rate limit</dt><dd id="rate-limit">${plan.ratePerMinute === null ? 'unlimited' : `${plan.ratePerMinute} a minute`}</dd></div>
<div><dt>Burst</dt><dd>${amount(plan.burst)}</dd></div>
</dl>
<p class="note">Credits reset on ${when(balance.resetsAt.toISOString())}.${
    rate.remaining === null ? '' : html` ${rate.remaining} of ${plan.burst} requests can be sent at once right now.`
  }</p>
<h2>This key</h2>
<table>
<tr><th>Id</th><td class="mono">${account.id}</td></tr>
<tr><th>Key</th><td class="mono">${account.keyPrefix}…</td></tr>
<tr><th>Name</th><td>${account.name || '—'}</td></tr>
<tr><th>Role</th><td>${owner ? 'owner (manages keys and plans)' : 'member'}</td></tr>
<tr><th>Created</th><td>${when(account.createdAt)}</td></tr>
</table>
<p class="note">Use this key with the REST API in the <code>x-api-key</code> header, or as <code>Authorization: Bearer</code> for MCP at <code>/mcp</code>.</p>`;
}

const PERIODS = [7, 14, 30] as const;

export function usageBody(record: UsageRecord, now: Date, metric: Metric, period: number): Html {
  const days = lastDays(now, period);
  const operations = operationsOf(record, days, 'calls');
  const totals = operations.map((operation) => {
    const sum = { calls: 0, failed: 0, credits: 0 };
    for (const day of days) {
      const figures = record.days[day]?.[operation];
      if (figures) {
        sum.calls += figures.calls;
        sum.failed += figures.failed;
        sum.credits += figures.credits;
      }
    }
    return { operation, ...sum };
  });
  const link = (m: Metric, p: number, text: string, current: boolean) =>
    html`<a href="/console/usage?metric=${m}&amp;days=${p}"${current ? html` aria-current="page"` : ''}>${text}</a>`;
  return html`<p class="switch">${link('calls', period, 'Calls', metric === 'calls')}${link('credits', period, 'Credits', metric === 'credits')} · ${PERIODS.map((p) =>
    link(metric, p, `${p} days`, p === period),
  )}</p>
${usageChart(record, days, metric)}
<h2>By operation, last ${period} days</h2>
${
  totals.length
    ? html`<table id="usage-by-operation"><tr><th>Operation</th><th class="num">Calls</th><th class="num">Failed</th><th class="num">Credits</th></tr>${totals.map(
        (row) => html`<tr><td class="mono">${row.operation}</td><td class="num">${row.calls}</td><td class="num">${row.failed}</td><td class="num">${row.credits}</td></tr>`,
      )}</table>`
    : html`<p class="note">No calls in this period.</p>`
}
<h2>Recent calls</h2>
${
  record.calls.length
    ? html`<table id="recent-calls"><tr><th>Time</th><th>Operation</th><th>Outcome</th><th class="num">Credits</th><th>Job / request</th></tr>${record.calls
        .slice()
        .reverse()
        .map(
          (call) =>
            html`<tr><td>${when(call.at)}</td><td class="mono">${call.operation}</td><td>${call.outcome}</td><td class="num">${call.credits}</td><td class="mono">${
              call.jobId ? html`<a href="/console/jobs/${encodeURIComponent(call.jobId)}">${call.jobId}</a>` : (call.requestId ?? '')
            }</td></tr>`,
        )}</table>`
    : html`<p class="note">No calls yet.</p>`
}
<p class="note">The last ${RECENT_CALLS} calls and ${KEEP_DAYS} days are kept. Usage reaches this page within a second of a call.</p>`;
}

export function parseUsageQuery(params: URLSearchParams): { metric: Metric; period: number } {
  const metric: Metric = params.get('metric') === 'credits' ? 'credits' : 'calls';
  const asked = Number(params.get('days'));
  const period = (PERIODS as readonly number[]).includes(asked) ? asked : 14;
  return { metric, period };
}
