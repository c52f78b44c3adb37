/**
 * Speech to text behind one small interface, and its OpenAI-compatible provider: any server with
 * POST {base}/audio/transcriptions (OpenAI, Groq, a local whisper.cpp or faster-whisper server).
 * Segment timestamps come from response_format=verbose_json with timestamp_granularities[]=segment.
 */
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { FormData } from 'undici';
import type { HttpClient } from '../net/http.js';
import type { Config } from '../config.js';
import { GleanerError } from '../errors.js';
import { languageCode } from './languages.js';

export interface SpeechSegment {
  /** Seconds from the start of the audio that was sent. */
  start: number;
  end: number;
  text: string;
}

export interface SpeechResult {
  /** ISO 639-1 code when the provider said which language it heard. */
  language?: string;
  /** Seconds of audio the provider heard. */
  duration?: number;
  segments: SpeechSegment[];
}

export interface SpeechToText {
  name: string;
  transcribe(file: { path: string; mimeType: string }, options: { lang?: string; signal?: AbortSignal }): Promise<SpeechResult>;
}

export interface OpenAiSpeechOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

interface VerboseTranscription {
  language?: string;
  duration?: number | string;
  text?: string;
  segments?: Array<{ start?: number; end?: number; text?: string }>;
  error?: { message?: string } | string;
}

export function openAiSpeechToText(http: HttpClient, options: OpenAiSpeechOptions): SpeechToText {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  return {
    name: `openai-compatible:${options.model}`,
    async transcribe(file, { lang, signal }) {
      const form = new FormData();
      form.set('file', await openAsBlob(file.path, { type: file.mimeType }), path.basename(file.path));
      form.set('model', options.model);
      form.set('response_format', 'verbose_json');
      form.append('timestamp_granularities[]', 'segment');
      // Whisper wants ISO 639-1: "pt", not "pt-BR".
      if (lang) form.set('language', lang.split('-')[0].toLowerCase());
      const response = await http.fetch(endpoint, {
        method: 'POST',
        headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
        body: form,
        timeoutMs: options.timeoutMs ?? 600_000,
        maxBytes: 16 * 1024 * 1024,
        signal,
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
        throw new GleanerError('UPSTREAM_ERROR', `The speech-to-text endpoint at ${new URL(endpoint).host} answered ${response.status}: ${detail}`);
      }
      if (typeof reply.text !== 'string' && !Array.isArray(reply.segments)) {
        throw new GleanerError('UPSTREAM_ERROR', `The speech-to-text endpoint at ${new URL(endpoint).host} sent no transcription.`);
      }
      const duration = reply.duration === undefined ? undefined : Number(reply.duration);
      const segments: SpeechSegment[] = Array.isArray(reply.segments)
        ? reply.segments
            .filter((s) => typeof s.text === 'string' && s.text.trim() !== '')
            .map((s) => ({ start: Number(s.start ?? 0), end: Number(s.end ?? s.start ?? 0), text: s.text!.trim() }))
        : // A server that ignores verbose_json gives text only: one segment spanning what it heard.
          reply.text!.trim()
          ? [{ start: 0, end: Number.isFinite(duration) ? duration! : 0, text: reply.text!.trim() }]
          : [];
      return { language: languageCode(reply.language), duration: Number.isFinite(duration) ? duration : undefined, segments };
    },
  };
}

/** The configured provider, or undefined when GLEANER_STT_URL is unset. */
export function speechToTextFromConfig(config: Config, http: HttpClient): SpeechToText | undefined {
  if (!config.GLEANER_STT_URL) return undefined;
  return openAiSpeechToText(http, { baseUrl: config.GLEANER_STT_URL, apiKey: config.GLEANER_STT_API_KEY, model: config.GLEANER_STT_MODEL });
}

export function sttNotConfigured(): GleanerError {
  return new GleanerError(
    'NOT_CONFIGURED',
    'No speech-to-text provider is configured, so media without captions cannot be transcribed. Set GLEANER_STT_URL to an OpenAI-compatible base URL (e.g. https://api.openai.com/v1 or a local whisper server), with GLEANER_STT_API_KEY and GLEANER_STT_MODEL (default whisper-1).',
  );
}
