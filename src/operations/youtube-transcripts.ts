/**
 * YouTube transcript operations: single, batch and translated. Canonical paths say `youtube`; the
 * spec's `vidsite` paths are aliases. The transcript itself comes from the YouTube source.
 */
import { z } from 'zod';
import { languageCode } from './inputs.js';
import { defineOperation } from './define.js';
import { isGleanerError, toGleanerError } from '../errors.js';
import type { TranscriptResponse } from '../model/content.js';
import { parseVideoRef } from '../platforms/youtube/ids.js';
import { aiTranslationCredits, transcriptCredits, TRANSCRIPT_COST } from '../media/credits.js';
import { chatModelFor } from '../ai/model-choice.js';
import { chunked } from '../media/segments.js';
import { youtubeVideoTranscript } from '../sources/youtube.js';
import { batchRefs, batchSource, eachInBatch, oneSource } from './youtube-batch.js';
import { transcriptBatchReply, transcriptReply } from './outputs.js';

const langCode = (what: string) => languageCode.describe(what);

/** `url`, `video_id` or `videoId`: exactly one video, else a 400 that says which rule broke. */
function oneVideo(input: { url?: string; video_id?: string; videoId?: string }, ctx: z.RefinementCtx): void {
  const ids = [input.video_id, input.videoId].filter((v): v is string => v !== undefined);
  if (ids.length === 2 && ids[0] !== ids[1]) ctx.addIssue({ code: 'custom', path: ['videoId'], message: 'video_id and videoId disagree; give one of them' });
  if (input.url !== undefined && ids.length > 0) ctx.addIssue({ code: 'custom', path: ['url'], message: 'give either url or video_id, not both' });
  if (input.url === undefined && ids.length === 0) ctx.addIssue({ code: 'custom', path: ['url'], message: 'give the video as url or video_id' });
}

function videoIdOfInput(input: { url?: string; video_id?: string; videoId?: string }): string {
  return parseVideoRef(input.url ?? input.video_id ?? input.videoId ?? '');
}

const timestamps = z.boolean().default(true).describe('Segment times in ms');
const textFlag = z.boolean().default(false).describe('Plain text, no segments');

export const youtubeTranscriptOp = defineOperation({
  name: 'youtube_transcript',
  title: 'YouTube video transcript',
  description:
    'Transcript of a YouTube video (captions, else speech to text). 1 credit, else 2 per minute.',
  http: { method: 'GET', path: '/v1/youtube/transcript', aliases: ['/v1/vidsite/transcript'] },
  input: z
    .object({
      url: z.string().min(1).max(2048).optional().describe('The video URL or id'),
      video_id: z.string().min(1).max(64).optional().describe('The video id (instead of url)'),
      videoId: z.string().min(1).max(64).optional().describe('Same as video_id'),
      lang: langCode('Preferred caption language code').optional(),
      translate: langCode('Translate to this language code').optional(),
      timestamps,
      text: textFlag,
    })
    .superRefine(oneVideo),
  output: transcriptReply,
  restAliases: ['video_id', 'videoId'],
  groups: ['youtube'],
  plan: 'Free',
  cost: TRANSCRIPT_COST,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  // translate behaves as on /v1/transcript: YouTube's translation, else the model where there is one.
  async run(input, ctx) {
    const result = await youtubeVideoTranscript(videoIdOfInput(input), { ...input, aiTranslation: Boolean(input.translate && chatModelFor(ctx)) }, ctx);
    if (result.translatedBy === 'ai') await ctx.reserveCredits(aiTranslationCredits(result.durationMinutes));
    return result;
  },
});

interface BatchTranscriptItem {
  url: string;
  videoId: string | null;
  transcript?: TranscriptResponse;
  errorCode?: string;
  message?: string;
}

export const youtubeTranscriptBatch = defineOperation({
  name: 'youtube_transcript_batch',
  title: 'YouTube transcripts, batch',
  description:
    'Transcripts of up to 50 YouTube videos (urls, or a playlistId or channelId), one result per video. Pro plan; 1 credit per transcript.',
  http: { method: 'POST', path: '/v1/youtube/transcript/batch', aliases: ['/v1/vidsite/transcript/batch'] },
  input: z
    .object({
      urls: z.array(z.string().max(2048)).min(1).max(50).optional().describe('Video URLs or ids'),
      ...batchSource,
      lang: langCode('Preferred caption language code').optional(),
      text: textFlag,
    })
    .superRefine(oneSource(['urls', 'videoIds', 'playlistId', 'channelId'])),
  output: transcriptBatchReply,
  // The SDK's videoIds is a synonym of urls (it runs as a job): one list is enough for a model.
  restAliases: ['videoIds'],
  groups: ['youtube'],
  plan: 'Pro',
  cost: {
    reserve: (input) => input.urls?.length ?? input.videoIds?.length ?? input.limit,
    settle: (_input, result: { creditsUsed: number }) => result.creditsUsed,
  },
  kind: 'sync',
  jobWhen: (input) => input.urls === undefined,
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const refs = input.urls ?? (await batchRefs(input, ctx));
    const results = await eachInBatch(refs, async (url): Promise<BatchTranscriptItem> => {
      let videoId: string | null = null;
      try {
        videoId = parseVideoRef(url);
        const transcript = await youtubeVideoTranscript(videoId, { lang: input.lang, timestamps: true, text: input.text }, ctx);
        return { url, videoId, transcript };
      } catch (error) {
        const failure = toGleanerError(error);
        if (!isGleanerError(error)) ctx.log.error({ err: error, url }, 'batch transcript failed');
        return { url, videoId, errorCode: failure.code, message: failure.message };
      }
    });
    const creditsUsed = results.reduce((sum, item) => sum + (item.transcript ? transcriptCredits(item.transcript) : 0), 0);
    return { results, creditsUsed };
  },
});

export const youtubeTranscriptTranslate = defineOperation({
  name: 'youtube_transcript_translate',
  title: 'Translated YouTube transcript',
  description:
    "A YouTube transcript translated into targetLang (YouTube's translation, else a model), timing kept. Pro plan; 30 credits per minute.",
  http: { method: 'POST', path: '/v1/youtube/transcript/translate', aliases: ['/v1/vidsite/transcript/translate'], alsoGet: true },
  input: z
    .object({
      url: z.string().min(1).max(2048).optional().describe('The video URL or id'),
      videoId: z.string().min(1).max(64).optional().describe('The video id (instead of url)'),
      video_id: z.string().min(1).max(64).optional().describe('Same as videoId'),
      targetLang: langCode('Language code to translate to').optional(),
      lang: langCode('Same as targetLang (the GET form)').optional(),
      timestamps,
      text: textFlag,
      chunkSize: z.number().int().min(1).max(100_000).optional().describe('Join segments up to this many characters'),
    })
    .superRefine((input, ctx) => {
      oneVideo(input, ctx);
      if (!input.targetLang && !input.lang) ctx.addIssue({ code: 'custom', path: ['targetLang'], message: 'give the language to translate to' });
      if (input.targetLang && input.lang && input.targetLang !== input.lang) ctx.addIssue({ code: 'custom', path: ['lang'], message: 'targetLang and lang disagree' });
    }),
  output: transcriptReply,
  restAliases: ['videoId', 'video_id', 'lang'],
  groups: ['youtube'],
  // transcript's translate does this for a model; listed with the youtube group.
  mcpGroupOnly: true,
  plan: 'Pro',
  cost: {
    reserve: () => aiTranslationCredits(1),
    settle: (_input, result: TranscriptResponse) => aiTranslationCredits(result.durationMinutes),
  },
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const videoId = videoIdOfInput(input);
    const target = (input.targetLang ?? input.lang)!;
    const result = await youtubeVideoTranscript(videoId, { translate: target, timestamps: input.timestamps, text: input.text, aiTranslation: true }, ctx);
    // The first minute was reserved up front; the rest once the video's length is known.
    const rest = aiTranslationCredits(result.durationMinutes) - aiTranslationCredits(1);
    if (rest > 0) await ctx.reserveCredits(rest);
    return chunked(result, input.chunkSize);
  },
});

export const YOUTUBE_TRANSCRIPT_OPERATIONS = [youtubeTranscriptOp, youtubeTranscriptBatch, youtubeTranscriptTranslate];
