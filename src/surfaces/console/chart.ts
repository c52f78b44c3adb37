/**
 * The usage chart: one bar a day, stacked by operation, drawn on the server as SVG (no script, no
 * library at run time). Colours are stylesheet classes, so the policy needs no inline style. A
 * table of the same figures follows the chart for screen readers and for reading exact numbers.
 */
import type { UsageRecord } from '../../accounts/usage.js';
import { html, type Html } from './html.js';

export type Metric = 'calls' | 'credits';

const WIDTH = 720;
const HEIGHT = 240;
const LEFT = 44;
const BOTTOM = 28;
const TOP = 10;
const SERIES_CLASSES = 10;

/** The last `count` UTC days, oldest first, ending today. */
export function lastDays(now: Date, count: number): string[] {
  const days: string[] = [];
  for (let i = count - 1; i >= 0; i--) days.push(new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10));
  return days;
}

/** Operations in the period, the busiest first (so colours are stable for the biggest series). */
export function operationsOf(record: UsageRecord, days: string[], metric: Metric): string[] {
  const totals = new Map<string, number>();
  for (const day of days) for (const [operation, figures] of Object.entries(record.days[day] ?? {})) totals.set(operation, (totals.get(operation) ?? 0) + figures[metric]);
  return [...totals].filter(([, total]) => total > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([operation]) => operation);
}

/** A round top for the axis: 1, 2, 5 times a power of ten. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= value)!;
}

export function usageChart(record: UsageRecord, days: string[], metric: Metric): Html {
  const operations = operationsOf(record, days, metric);
  const classOf = (operation: string) => `s${operations.indexOf(operation) % SERIES_CLASSES}`;
  const totals = days.map((day) => operations.reduce((sum, operation) => sum + (record.days[day]?.[operation]?.[metric] ?? 0), 0));
  const top = niceMax(Math.max(0, ...totals));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / days.length;
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const label = `${metric === 'calls' ? 'Calls' : 'Credits'} per day over the last ${days.length} days, by operation`;

  const grid = [0, top / 2, top].map(
    (value) => html`<line class="grid" x1="${LEFT}" x2="${WIDTH}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"/><text x="${LEFT - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${formatTick(value)}</text>`,
  );
  const bars = days.map((day, index) => {
    let base = 0;
    const x = LEFT + index * slot + (slot - barWidth) / 2;
    const pieces = operations.map((operation) => {
      const value = record.days[day]?.[operation]?.[metric] ?? 0;
      if (value <= 0) return '';
      const piece = html`<rect class="${classOf(operation)}" x="${x.toFixed(1)}" y="${y(base + value).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(base) - y(base + value)).toFixed(1)}"><title>${day} ${operation}: ${value} ${metric}</title></rect>`;
      base += value;
      return piece;
    });
    // A date under every bar would collide: the first, the last and every seventh are named.
    const named = index === 0 || index === days.length - 1 || (days.length - 1 - index) % 7 === 0;
    return html`${pieces}${named ? html`<text x="${(x + barWidth / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${day.slice(5)}</text>` : ''}`;
  });

  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg"><title>${label}</title>${grid}${bars}</svg>
${operations.length ? html`<ul class="legend">${operations.map((operation) => html`<li class="${classOf(operation)}"><span>${operation}</span></li>`)}</ul>` : html`<p class="note">No ${metric} in this period.</p>`}`;
}

function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
