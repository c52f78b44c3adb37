/** Caption files to timed segments: WebVTT (TikTok) and SubRip (Facebook). */
import type { TranscriptSegment } from '../model/content.js';

function clock(text: string): number | undefined {
  const match = /^(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})$/.exec(text.trim());
  if (!match) return undefined;
  const [, h, m, s, ms] = match;
  return ((Number(h ?? 0) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(ms.padEnd(3, '0'));
}

function cleanText(lines: string[]): string {
  return lines
    .join(' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cues of WebVTT or SRT: blocks separated by blank lines, each with a "start --> end" line. */
export function parseCaptions(body: string, lang: string): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  for (const block of body.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split(/\n{2,}/)) {
    const lines = block.split('\n');
    const timing = lines.findIndex((l) => l.includes('-->'));
    if (timing < 0) continue;
    const [startText, rest] = lines[timing].split('-->');
    const start = clock(startText);
    const end = clock(rest.trim().split(/\s+/)[0]);
    const text = cleanText(lines.slice(timing + 1));
    if (start === undefined || end === undefined || !text) continue;
    segments.push({ text, offset: start, duration: Math.max(0, end - start), lang });
  }
  return segments;
}
