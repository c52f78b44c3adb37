/** Caption files platforms publish (TikTok: WebVTT; Facebook: SubRip) as timed segments. */

export interface Cue {
  text: string;
  /** Milliseconds. */
  offset: number;
  duration: number;
}

function timestamp(value: string): number {
  // 01:02:03.456, 02:03.456 (WebVTT) or 01:02:03,456 (SubRip)
  const parts = value.trim().replace(',', '.').split(':');
  let seconds = 0;
  for (const part of parts) seconds = seconds * 60 + Number(part);
  return Math.round(seconds * 1000);
}

const CUE_TIMING = /^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})/;

/** Parses WebVTT or SubRip: blocks of a timing line and text lines; tags and cue settings dropped. */
export function parseSubtitles(body: string): Cue[] {
  const cues: Cue[] = [];
  const blocks = body.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split(/\n{2,}/);
  for (const block of blocks) {
    const lines = block.split('\n');
    const timingAt = lines.findIndex((line) => CUE_TIMING.test(line));
    if (timingAt < 0) continue;
    const [, from, to] = CUE_TIMING.exec(lines[timingAt])!;
    const text = lines
      .slice(timingAt + 1)
      .join(' ')
      .replace(/<[^>]+>/g, '')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&nbsp;/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (!text) continue;
    const offset = timestamp(from);
    cues.push({ text, offset, duration: Math.max(0, timestamp(to) - offset) });
  }
  return cues;
}
