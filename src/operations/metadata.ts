/**
 * `metadata`: one Metadata shape for any URL. The first URL handler that owns the URL (YouTube,
 * TikTok, ...; see url-handlers.ts) answers; any other URL is read as a web page.
 */
import { z } from 'zod';
import { httpUrl, renderMode, waitForInput } from './inputs.js';
import { assertRenderable, pagePrice, renderChoice, renderPrice } from './render.js';
import { defineOperation } from './define.js';
import { handlerFor } from './url-handlers.js';
import { readWebPageMetadata } from '../web/fetch-metadata.js';
import { metadataReply } from '../platforms/metadata-reply.js';
import { metadataReplySchema } from './outputs.js';

export const metadataOperation = defineOperation({
  name: 'metadata',
  title: 'Metadata of a video, post or web page',
  description:
    'Returns the metadata of a URL in one shape for every platform: title, description, author, counts, thumbnails, publication date, tags. Works for supported video and social platforms and for any web page (OpenGraph, Twitter cards, JSON-LD, canonical URL, favicon, language; pages built by JavaScript are rendered in a browser first, see render). Costs 1 credit, plus the render price when a page is rendered.',
  http: { method: 'GET', path: '/v1/metadata' },
  input: z.object({
    url: httpUrl.describe('The video, post or page URL'),
    render: renderMode,
    waitFor: waitForInput,
  }),
  output: metadataReplySchema,
  plan: 'Free',
  cost: { reserve: pagePrice, settle: (_input, result, config) => 1 + (result.rendered ? renderPrice(config) : 0) },
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async check(input, ctx) {
    if (!handlerFor(new URL(input.url))?.metadata) assertRenderable(input, ctx);
  },
  async run(input, ctx) {
    const url = new URL(input.url);
    const handler = handlerFor(url);
    if (handler?.metadata) return metadataReply(await handler.metadata(url, ctx));
    // Platforms read their own data; only a web page is ever rendered.
    const page = await readWebPageMetadata(ctx.services.http, input.url, ctx.signal, renderChoice(input, ctx));
    return { ...metadataReply(page.metadata), rendered: page.rendered, ...(page.warnings.length ? { warnings: page.warnings } : {}) };
  },
});
