/** The caller's shape options applied to any transcript: timestamps off, or one plain string. */
import type { TranscriptResponse, TranscriptSegment } from '../model/content.js';

export function finishTranscript(
  transcript: TranscriptResponse & { content: TranscriptSegment[] },
  options: { timestamps: boolean; text?: boolean },
): TranscriptResponse {
  if (options.text) return { ...transcript, content: transcript.content.map((s) => s.text).join(' ') };
  if (options.timestamps) return transcript;
  return { ...transcript, content: transcript.content.map(({ text, lang }) => ({ text, lang })) };
}

/**
 * Consecutive segments joined until a chunk holds about `size` characters (the Supadata SDK's
 * chunkSize): fewer, longer segments, each timed from its first part to the end of its last.
 */
export function chunked(result: TranscriptResponse, size: number | undefined): TranscriptResponse {
  if (size === undefined || typeof result.content === 'string') return result;
  const chunks: TranscriptSegment[] = [];
  for (const segment of result.content as TranscriptSegment[]) {
    const last = chunks.at(-1);
    if (!last || last.text.length + 1 + segment.text.length > size) {
      chunks.push({ ...segment });
      continue;
    }
    last.text = `${last.text} ${segment.text}`;
    if (last.offset !== undefined && segment.offset !== undefined && segment.duration !== undefined) last.duration = segment.offset + segment.duration - last.offset;
  }
  return { ...result, content: chunks };
}
