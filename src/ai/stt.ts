/**
 * Speech to text behind a small interface: one audio file in, timed segments and the detected
 * language out. The media pipeline (src/media) cuts long media into files this size.
 */
export interface SpeechSegment {
  /** Seconds from the start of the audio file. */
  start: number;
  end: number;
  text: string;
  /** Who spoke, as a diarizing endpoint labels it ("A", "SPEAKER_00"); labels hold within one audio file only. */
  speaker?: string;
}

export interface SpeechTranscript {
  /** ISO 639-1 code where the provider said which language it heard. */
  language?: string;
  segments: SpeechSegment[];
}

export interface AudioFile {
  data: Uint8Array;
  filename: string;
  contentType: string;
}

export interface SpeechToText {
  /** Who answers, for logs (e.g. "openai-compatible:whisper-1"). */
  readonly name: string;
  transcribe(audio: AudioFile, options: { lang?: string; signal?: AbortSignal }): Promise<SpeechTranscript>;
}

export const STT_NOT_CONFIGURED =
  'No speech-to-text provider is configured. Set GLEANER_STT_URL to an OpenAI-compatible endpoint (base URL, e.g. https://api.openai.com/v1 or a local whisper server), GLEANER_STT_API_KEY to its key and optionally GLEANER_STT_MODEL (default whisper-1).';
