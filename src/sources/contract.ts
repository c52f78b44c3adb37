/**
 * The contract a URL source fulfils: which URLs it owns, and what it can give for one (metadata, a
 * transcript, the video itself for analysis). Operations reach sources through the registry
 * (registry.ts) with a narrow context that an operation's own context satisfies.
 */
import type { Metadata, TranscriptResponse } from '../model/content.js';
import type { MediaContext, MediaSource } from '../media/pipeline.js';
import type { ChatModel } from '../ai/chat.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { GleanerError } from '../errors.js';

export interface TranscriptOptions {
  lang?: string;
  translate?: string;
  timestamps: boolean;
  text?: boolean;
  /** Captions only: never speech to text (the Supadata SDK's mode=native). */
  captionsOnly?: boolean;
  /** Speech to text even where captions exist (mode=generate). */
  generate?: boolean;
}

/** What a source may use of the call: the media pipeline's needs plus the store, a model and a logger. */
export interface SourceContext extends MediaContext {
  services: MediaContext['services'] & { store: Store; chat?: ChatModel };
  log: Logger;
  /** The connected MCP client's model, when the call came over MCP from a client that offers sampling. */
  sampling?: ChatModel;
}

export interface Source {
  platform: Metadata['platform'];
  /** True when this source owns the URL. */
  matches(url: URL): boolean;
  metadata?(url: URL, ctx: SourceContext): Promise<Metadata>;
  transcript?(url: URL, options: TranscriptOptions, ctx: SourceContext): Promise<TranscriptResponse>;
  /** The video itself (a rendition with pictures), for analysis that looks at its frames. */
  videoMedia?(url: URL, ctx: SourceContext): Promise<MediaSource | undefined>;
}

/** mode=native asks for captions only: media without them is not sent to speech to text. */
export function captionsOnlyRefusal(what: string): GleanerError {
  return new GleanerError('TRANSCRIPT_UNAVAILABLE', `${what} has no captions, and mode=native does not transcribe speech (mode=auto does, where a speech-to-text provider is set).`);
}
