/**
 * The text part of a result whose reply has no paged shape (paging.ts pages the long ones): the
 * reply's JSON cut to the page size, long strings and long lists shortened, each cut marked;
 * structuredContent keeps everything. In practice a model's answer (video_analysis) that runs long.
 */

/** From generous to tight: the first that fits the budget is used. */
const STEPS = [
  { chars: 4_000, items: 50 },
  { chars: 1_000, items: 20 },
  { chars: 300, items: 10 },
  { chars: 100, items: 5 },
  { chars: 40, items: 2 },
];

function shorten(value: unknown, step: (typeof STEPS)[number]): unknown {
  if (typeof value === 'string') {
    return value.length > step.chars ? `${value.slice(0, step.chars)}… [${value.length - step.chars} more characters in structuredContent]` : value;
  }
  if (Array.isArray(value)) {
    const kept = value.slice(0, step.items).map((item) => shorten(item, step));
    return value.length > step.items ? [...kept, `… ${value.length - step.items} more items in structuredContent`] : kept;
  }
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shorten(item, step)]));
  return value;
}

export function trimmedJson(value: unknown, budget: number): string {
  const full = JSON.stringify(value);
  if (full.length <= budget) return full;
  for (const step of STEPS) {
    const text = JSON.stringify(shorten(value, step));
    if (text.length <= budget) return `${text}\n(Trimmed to ${budget} characters; the full reply is in structuredContent.)`;
  }
  return `${full.slice(0, budget)}…\n(Trimmed to ${budget} characters; the full reply is in structuredContent.)`;
}
