/**
 * `metadata`: one Metadata shape for any URL. The first source that owns the URL (YouTube,
 * TikTok, ...; see sources/registry.ts) answers; any other URL is read as a web page.
 */
import { z } from 'zod';
import { httpUrl, renderMode, waitForInput } from './inputs.js';
import { assertRenderable, renderChoice, PAGE_COST } from './render.js';
import { defineOperation } from './define.js';
import { sourceFor } from '../sources/registry.js';
import { readWebPageMetadata } from '../web/fetch-metadata.js';
import { metadataReply } from '../platforms/metadata-reply.js';
import { metadataReplySchema } from './outputs.js';
import { documentSettings } from './documents.js';

export const metadataOperation = defineOperation({
  name: 'metadata',
  title: 'Link metadata',
  description:
    'Metadata of a video, post, page or PDF/Word file: title, author, counts, date, tags. Use it for facts about a link, not its text. 1 credit.',
  http: { method: 'GET', path: '/v1/metadata' },
  input: z.object({
    url: httpUrl,
    render: renderMode,
    waitFor: waitForInput,
  }),
  output: metadataReplySchema,
  groups: ['video', 'web'],
  plan: 'Free',
  cost: PAGE_COST,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async check(input, ctx) {
    if (!sourceFor(new URL(input.url))?.metadata) assertRenderable(input, ctx);
  },
  async run(input, ctx) {
    const url = new URL(input.url);
    const source = sourceFor(url);
    if (source?.metadata) return metadataReply(await source.metadata(url, ctx));
    // Platforms read their own data; only a web page is ever rendered.
    const page = await readWebPageMetadata(ctx.services.http, input.url, ctx.signal, renderChoice(input, ctx), documentSettings(ctx));
    return { ...metadataReply(page.metadata), rendered: page.rendered, ...(page.warnings.length ? { warnings: page.warnings } : {}) };
  },
});
