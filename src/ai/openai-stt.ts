/**
 * An OpenAI-compatible /audio/transcriptions endpoint (OpenAI, Groq, a local whisper server ...).
 * Asks for verbose_json with segment timestamps, which carries the detected language too.
 */
import { FormData } from 'undici';
import type { HttpClient } from '../net/http.js';
import { endpointUrl } from './endpoint.js';
import { GleanerError } from '../errors.js';
import type { SpeechToText, SpeechTranscript } from './stt.js';
import { languageCode } from './language.js';

export interface OpenAiSttOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

interface VerboseTranscription {
  language?: string;
  text?: string;
  duration?: number;
  segments?: Array<{ start?: number; end?: number; text?: string; speaker?: unknown }>;
  error?: { message?: string } | string;
}

export function openAiSpeechToText(http: HttpClient, options: OpenAiSttOptions): SpeechToText {
  const endpoint = endpointUrl(options.baseUrl, 'audio/transcriptions');
  const host = new URL(endpoint).host;
  return {
    name: `openai-compatible:${options.model}`,
    async transcribe(audio, { lang, signal }) {
      const form = new FormData();
      form.append('file', new Blob([audio.data], { type: audio.contentType }), audio.filename);
      form.append('model', options.model);
      form.append('response_format', 'verbose_json');
      form.append('timestamp_granularities[]', 'segment');
      const language = languageCode(lang)?.split('-')[0];
      if (language && language.length === 2) form.append('language', language);
      const response = await http.fetch(endpoint, {
        method: 'POST',
        headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
        body: form,
        timeoutMs: options.timeoutMs ?? 600_000,
        signal,
        // Transcribing the same audio twice is harmless; a busy endpoint (429, 5xx) gets another try.
        retries: 2,
        // The endpoint is operator configuration (GLEANER_STT_URL), often a local server: not a user URL.
        guard: false,
      });
      let reply: VerboseTranscription = {};
      try {
        reply = response.json<VerboseTranscription>();
      } catch {
        /* reported below */
      }
      if (response.status >= 400) {
        const detail = typeof reply.error === 'string' ? reply.error : (reply.error?.message ?? response.text().slice(0, 200));
        const hint = response.status === 401 || response.status === 403 ? ' (check GLEANER_STT_API_KEY)' : response.status === 404 ? ' (check GLEANER_STT_URL and GLEANER_STT_MODEL)' : '';
        throw new GleanerError('UPSTREAM_ERROR', `The speech-to-text endpoint at ${host} answered ${response.status}${hint}: ${detail}`);
      }
      return toTranscript(reply, host);
    },
  };
}

/** A diarizing endpoint's label (a string or a number), bounded; anything else is no label. */
function speakerOf(label: unknown): { speaker?: string } {
  if (typeof label === 'number' && Number.isFinite(label)) return { speaker: String(label) };
  if (typeof label !== 'string') return {};
  const speaker = label.trim().slice(0, 50);
  return speaker ? { speaker } : {};
}

function toTranscript(reply: VerboseTranscription, host: string): SpeechTranscript {
  const language = languageCode(reply.language);
  if (Array.isArray(reply.segments)) {
    const segments = reply.segments
      .filter((s) => typeof s.text === 'string' && Number.isFinite(s.start) && Number.isFinite(s.end))
      .map((s) => ({ start: s.start!, end: Math.max(s.start!, s.end!), text: s.text!.trim(), ...speakerOf(s.speaker) }))
      .filter((s) => s.text.length > 0);
    return { language, segments };
  }
  if (typeof reply.text === 'string') {
    // A server that ignores timestamp_granularities: one segment for the whole file.
    const text = reply.text.trim();
    return { language, segments: text ? [{ start: 0, end: Number.isFinite(reply.duration) ? reply.duration! : 0, text }] : [] };
  }
  throw new GleanerError('UPSTREAM_ERROR', `The speech-to-text endpoint at ${host} returned no transcript (expected verbose_json with segments).`);
}
