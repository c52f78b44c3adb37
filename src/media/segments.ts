/** The caller's shape options applied to any transcript: timestamps off, or one plain string. */
import type { TranscriptResponse, TranscriptSegment } from '../platforms/types.js';

export function finishTranscript(
  transcript: TranscriptResponse & { content: TranscriptSegment[] },
  options: { timestamps: boolean; text?: boolean },
): TranscriptResponse {
  if (options.text) return { ...transcript, content: transcript.content.map((s) => s.text).join(' ') };
  if (options.timestamps) return transcript;
  return { ...transcript, content: transcript.content.map(({ text, lang }) => ({ text, lang })) };
}
