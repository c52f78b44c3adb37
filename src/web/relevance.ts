/**
 * Orders URLs by relevance to a search term (web_map's `search`), from the URL alone: a map reads
 * no page text. A URL scores for the whole term in its path, then for each word of the term among
 * its path words (a whole word beats part of one), then in its host; ties keep the map's order.
 */
const words = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

export function relevance(url: string, term: string): number {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 0;
  }
  const path = decodeSafe(parsed.pathname + parsed.search).toLowerCase();
  const pathWords = words(path);
  const hostWords = words(parsed.hostname);
  const termWords = words(term);
  let score = 0;
  const phrase = termWords.join('-');
  if (phrase && `-${pathWords.join('-')}-`.includes(`-${phrase}-`)) score += 100;
  for (const word of termWords) {
    if (pathWords.includes(word)) score += 10;
    else if (pathWords.some((candidate) => candidate.includes(word))) score += 4;
    if (hostWords.includes(word)) score += 2;
  }
  return score;
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The URLs most relevant first; a stable sort keeps the map's order among equals. */
export function byRelevance(urls: string[], term: string): string[] {
  const scored = urls.map((url, index) => ({ url, index, score: relevance(url, term) }));
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.map((entry) => entry.url);
}
