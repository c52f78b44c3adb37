/**
 * The prices of transcripts, in one place: 1 credit for native captions, 2 per started minute of
 * media for AI ones, 30 per started minute for a translation by a language model. The pipeline
 * reserves with the same functions the operations settle with, so the two agree.
 */
export const CAPTION_CREDITS = 1;

/** Minutes as the reply states them (two decimals). */
export function durationMinutes(seconds: number): number {
  return Math.round((seconds / 60) * 100) / 100;
}

export function aiTranscriptCredits(minutes: number): number {
  return 2 * Math.max(1, Math.ceil(minutes));
}

/** A transcript translated by a language model: 30 credits per started minute, as the translate operation costs. */
export function aiTranslationCredits(minutes: number): number {
  return 30 * Math.max(1, Math.ceil(minutes));
}

/** A transcript's price, with its AI translation where a language model translated it. */
export function transcriptCredits(result: { aiGenerated: boolean; durationMinutes: number; translatedBy?: string }): number {
  const transcript = result.aiGenerated ? aiTranscriptCredits(result.durationMinutes) : CAPTION_CREDITS;
  return transcript + (result.translatedBy === 'ai' ? aiTranslationCredits(result.durationMinutes) : 0);
}

/**
 * What a transcript operation costs: 1 credit held up front; speech to text and a model's translation
 * reserve the rest once the media's length is known, and the result settles it all.
 */
export const TRANSCRIPT_COST = {
  reserve: () => CAPTION_CREDITS,
  settle: (_input: unknown, result: { aiGenerated: boolean; durationMinutes: number; translatedBy?: string }) => transcriptCredits(result),
};
