/**
 * Facebook's and Instagram's www pages carry their data as ServerJS payloads: <script type="application/json"
 * data-sjs> blocks holding {"require": [[module, method, deps, args], ...]}, nested through
 * ScheduledServerJS → __bbox.require. The GraphQL results the page was rendered from sit in
 * RelayPrefetchedStreamCache calls: ["RelayPrefetchedStreamCache", "next", [], [key, {__bbox:
 * {result: {data}}}]]. This reads those results by walking the structure, not by regexes over the page.
 */
import * as cheerio from 'cheerio';

export interface RelayResult {
  /** The preloader's key, e.g. "adp_FBReelsRootWithEntrypointQueryRelayPreloader_…". */
  key: string;
  data: Record<string, unknown>;
}

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every require call in a payload, however deep its __bbox nesting. */
function* requireCalls(node: Json, depth = 0): Generator<Json[]> {
  if (depth > 12) return;
  if (Array.isArray(node)) {
    for (const item of node) yield* requireCalls(item, depth + 1);
    return;
  }
  if (!isRecord(node)) return;
  const calls = node.require;
  if (Array.isArray(calls)) {
    for (const call of calls) {
      if (Array.isArray(call)) {
        yield call;
        // A call's arguments hold further payloads (ScheduledServerJS.handle's {__bbox: {require}}).
        yield* requireCalls(call[3], depth + 1);
      }
    }
  }
  if (isRecord(node.__bbox)) yield* requireCalls(node.__bbox, depth + 1);
}

/** The RelayPrefetchedStreamCache results of every ServerJS payload in the page. */
export function relayResults(html: string): RelayResult[] {
  const $ = cheerio.load(html);
  const results: RelayResult[] = [];
  $('script[type="application/json"]').each((_, element) => {
    const text = $(element).text();
    if (!text.includes('RelayPrefetchedStreamCache')) return;
    let payload: Json;
    try {
      payload = JSON.parse(text);
    } catch {
      return;
    }
    for (const call of requireCalls(payload)) {
      if (typeof call[0] !== 'string' || !call[0].startsWith('RelayPrefetchedStreamCache')) continue;
      const args = call[3];
      if (!Array.isArray(args) || typeof args[0] !== 'string' || !isRecord(args[1])) continue;
      const bbox = args[1].__bbox;
      const data = isRecord(bbox) && isRecord(bbox.result) ? bbox.result.data : undefined;
      if (isRecord(data)) results.push({ key: args[0], data });
    }
  });
  return results;
}

/** Depth-first: the first object for which `test` holds. */
export function findObject(node: Json, test: (value: Record<string, Json>) => boolean, depth = 0): Record<string, Json> | undefined {
  if (depth > 30) return undefined;
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = findObject(item, test, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (!isRecord(node)) return undefined;
  if (test(node)) return node;
  for (const value of Object.values(node)) {
    const found = findObject(value, test, depth + 1);
    if (found) return found;
  }
  return undefined;
}
