/**
 * `metadata`: one Metadata shape for any URL. The first URL handler that owns the URL (YouTube,
 * TikTok, ...; see url-handlers.ts) answers; any other URL is read as a web page.
 */
import { z } from 'zod';
import { httpUrl } from './inputs.js';
import { defineOperation } from './define.js';
import { handlerFor } from './url-handlers.js';
import { webPageMetadata } from '../web/fetch-metadata.js';
import { metadataReply } from '../platforms/metadata-reply.js';
import { metadataReplySchema } from './outputs.js';
import { documentSettings } from './documents.js';

export const metadataOperation = defineOperation({
  name: 'metadata',
  title: 'Link metadata',
  description:
    'Metadata of a video, post, web page or PDF/Word document in one shape: title, description, author, counts, thumbnails, date, tags, pages. Use it for facts about a link, not its text. 1 credit.',
  http: { method: 'GET', path: '/v1/metadata' },
  input: z.object({ url: httpUrl.describe('The video, post or page URL') }),
  output: metadataReplySchema,
  groups: ['video', 'web'],
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const url = new URL(input.url);
    const handler = handlerFor(url);
    const metadata = handler?.metadata ? await handler.metadata(url, ctx) : await webPageMetadata(ctx.services.http, input.url, ctx.signal, documentSettings(ctx.services.config));
    return metadataReply(metadata);
  },
});
