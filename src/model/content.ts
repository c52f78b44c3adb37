/**
 * The shapes every platform adapter returns: the spec's TranscriptResponse and the unified
 * Metadata object. Types flow from these zod schemas (they also document the replies).
 */
import { z } from 'zod';

export const transcriptSegment = z.object({
  text: z.string(),
  /** Start in milliseconds; absent when timestamps=false. */
  offset: z.number().int().optional(),
  /** Duration in milliseconds; absent when timestamps=false. */
  duration: z.number().int().optional(),
  lang: z.string(),
  /** Who spoke, where a diarizing speech-to-text endpoint said (an addition to the spec's segment). */
  speaker: z.string().optional().describe('Who spoke, as the speech-to-text endpoint labels it'),
});
export type TranscriptSegment = z.infer<typeof transcriptSegment>;

/** A part of a video: its title and where it starts, in seconds (YouTube's chapters). */
export const chapter = z.object({ title: z.string(), start: z.number().describe('Seconds from the start') });
export type Chapter = z.infer<typeof chapter>;

export const transcriptResponse = z.object({
  lang: z.string(),
  aiGenerated: z.boolean(),
  durationMinutes: z.number(),
  cached: z.boolean(),
  /** Segments, or one plain string when the caller asked for text=true. */
  content: z.union([z.array(transcriptSegment), z.string()]),
  /** Caption languages the video offers (where the platform says). */
  availableLangs: z.array(z.string()).optional(),
  /** The language the transcript was translated to, when it was. */
  translatedTo: z.string().optional(),
  /** Who translated: the platform's own caption translation, or a language model. */
  translatedBy: z.enum(['youtube', 'ai']).optional(),
  platform: z.string().optional(),
  videoId: z.string().optional(),
  /** The video's chapters, where it has them (an addition to the spec's reply). */
  chapters: z.array(chapter).optional().describe("The video's chapters, where it has them"),
});
export type TranscriptResponse = z.infer<typeof transcriptResponse>;

export const thumbnail = z.object({ url: z.string(), width: z.number().int().optional(), height: z.number().int().optional() });

export const metadata = z.object({
  platform: z.enum(['youtube', 'tiktok', 'instagram', 'x', 'facebook', 'video', 'web']),
  url: z.string(),
  id: z.string().optional(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  author: z
    .object({
      name: z.string().nullable(),
      id: z.string().optional(),
      url: z.string().optional(),
      handle: z.string().optional(),
      avatarUrl: z.string().optional(),
      verified: z.boolean().optional(),
    })
    .nullable(),
  /** What the post is; adapters that know say so, the reply infers the rest (see metadata-reply.ts). */
  type: z.enum(['video', 'image', 'carousel', 'post', 'page']).optional(),
  /** The playable media, where the platform hands it out. */
  mediaUrl: z.string().optional(),
  counts: z
    .object({
      views: z.number().optional(),
      likes: z.number().optional(),
      comments: z.number().optional(),
      shares: z.number().optional(),
      saves: z.number().optional(),
    })
    .optional(),
  thumbnails: z.array(thumbnail),
  durationSeconds: z.number().optional(),
  publishedAt: z.string().optional(),
  tags: z.array(z.string()).optional(),
  language: z.string().optional(),
  /** Web pages: canonical URL, site name, favicon. */
  canonicalUrl: z.string().optional(),
  siteName: z.string().optional(),
  favicon: z.string().optional(),
  /** Documents read as pages (PDF, Word): which kind, and a PDF's page count. */
  documentType: z.enum(['pdf', 'docx']).optional(),
  pages: z.number().int().optional(),
  /** A video's chapters, where it has them. */
  chapters: z.array(chapter).optional(),
});
export type Metadata = z.infer<typeof metadata>;
