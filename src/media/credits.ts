/**
 * Credits of a transcript: 1 for native captions, 2 per started minute of media for AI ones.
 * The pipeline reserves with the same function the operations settle with, so the two agree.
 */
export const CAPTION_CREDITS = 1;

/** Minutes as the reply states them (two decimals). */
export function durationMinutes(seconds: number): number {
  return Math.round((seconds / 60) * 100) / 100;
}

export function aiTranscriptCredits(minutes: number): number {
  return 2 * Math.max(1, Math.ceil(minutes));
}

export function transcriptCredits(result: { aiGenerated: boolean; durationMinutes: number }): number {
  return result.aiGenerated ? aiTranscriptCredits(result.durationMinutes) : CAPTION_CREDITS;
}
