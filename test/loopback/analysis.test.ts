/**
 * AI video analysis and AI translation through real servers on loopback: the recorded YouTube
 * replies (test/fixtures/youtube), an OpenAI-compatible chat server that checks what it is sent,
 * and an MCP client that answers sampling requests with its "own model".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcpV2 } from '../support/mcp-v2.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { imagesOf, startChatServer, textOf, type ChatServer } from '../support/chat-server.js';
import { generateMedia, startMediaServer, type MediaServer } from '../support/media.js';

const VIDEO = 'https://www.youtube.com/watch?v=GJLlxj_dtq8';
/** A recorded video with both watch-page metadata and captions. */
const RICH = 'https://www.youtube.com/watch?v=kX3nB4PpJko';
const schema = {
  type: 'object',
  properties: { summary: { type: 'string' }, lines: { type: 'integer', minimum: 1 } },
  required: ['summary', 'lines'],
  additionalProperties: false,
};

let replay: YoutubeReplay;
let streams: MediaServer;
let chat: ChatServer;
let withModel: TestServer;
let withoutModel: TestServer;

beforeAll(async () => {
  replay = await startYoutubeReplay();
  chat = await startChatServer();
  streams = await startMediaServer();
  streams.serve('/videoplayback', generateMedia().make('stream.mp4', 6), 'video/mp4');
  const overrides = `youtube.com=${replay.origin},googleapis.com=${replay.origin},googlevideo.com=${streams.origin}`;
  withModel = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: overrides, GLEANER_LLM_URL: chat.url, GLEANER_LLM_API_KEY: 'sk-local', GLEANER_LLM_MODEL: 'local-model' } });
  withoutModel = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: overrides, GLEANER_MCP_WAIT_SECONDS: '20' } });
});
afterAll(async () => {
  await withModel.close();
  await withoutModel.close();
  await chat.close();
  await replay.close();
  await streams.close();
});

async function waitForJob(server: TestServer, key: string, jobId: string) {
  const me = (await server.request('GET', '/v1/me', { apiKey: key })).body;
  return server.app.services.jobs.waitFor(jobId, me.id, 15_000);
}

describe('video_analysis over REST with a configured model', () => {
  it('moves queued -> processing -> completed and returns data that validates against the schema', async () => {
    const key = await withModel.createKey('Pro');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    chat.script(async () => {
      await held;
      return JSON.stringify({ summary: 'A short test transcript.', lines: 3 });
    });
    const started = await withModel.request('POST', '/v1/video/analysis', { apiKey: key, body: { url: RICH, prompt: 'Summarise and count the lines.', schema } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'queued', result: null });
    const { jobId } = started.body;

    // The model is holding its answer: the job must be processing now.
    while ((await withModel.request('GET', `/v1/jobs/${jobId}`, { apiKey: key })).body.status !== 'processing') {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    release();
    await waitForJob(withModel, key, jobId);
    const done = await withModel.request('GET', `/v1/jobs/${jobId}`, { apiKey: key });
    expect(done.body.status).toBe('completed');
    expect(done.body.result).toMatchObject({ data: { summary: 'A short test transcript.', lines: 3 }, schema, model: 'openai-compatible:local-model' });

    const sent = chat.calls.at(-1)!;
    expect(sent.authorization).toBe('Bearer sk-local');
    expect(sent.response_format?.json_schema?.schema).toEqual(schema);
    // What the model saw: the recorded captions and the recorded watch-page metadata.
    expect(textOf(sent.messages[1])).toContain('Hey, this is just a test');
    expect(textOf(sent.messages[1])).toContain('MrBeast');
    expect(done.body.result.notes).toEqual([]);
    expect(textOf(sent.messages[1])).toContain('Summarise and count the lines.');
    // And its frames: the recorded player reply's smallest video stream (served here from a generated file).
    expect(imagesOf(sent.messages[1]).length).toBe(done.body.result.frames.count);
    expect(done.body.result.frames.count).toBeGreaterThan(0);
    expect((await withModel.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(3000 - 5);
  });

  it('a schema the first answer violates is fixed on the retry', async () => {
    const key = await withModel.createKey('Pro');
    chat.script(JSON.stringify({ summary: 'no count' }), JSON.stringify({ summary: 'fixed', lines: 3 }));
    const started = await withModel.request('POST', '/v1/video/analysis', { apiKey: key, body: { url: VIDEO, schema } });
    const job = await waitForJob(withModel, key, started.body.jobId);
    expect(job.status).toBe('completed');
    expect((job.result as { data: unknown }).data).toEqual({ summary: 'fixed', lines: 3 });
  });

  it('an answer that never validates fails the job and charges nothing', async () => {
    const key = await withModel.createKey('Pro');
    chat.script(JSON.stringify({ summary: 'still no count' }));
    const started = await withModel.request('POST', '/v1/video/analysis', { apiKey: key, body: { url: VIDEO, schema } });
    const job = await waitForJob(withModel, key, started.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.error?.message).toMatch(/did not follow the schema/);
    expect((await withModel.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(3000);
  });

  it('a prompt alone gets a text answer', async () => {
    const key = await withModel.createKey('Pro');
    chat.script('It is a short test video.');
    const started = await withModel.request('POST', '/v1/video/analysis', { apiKey: key, body: { url: VIDEO, prompt: 'What is it?' } });
    const job = await waitForJob(withModel, key, started.body.jobId);
    expect(job.result).toMatchObject({ data: 'It is a short test video.', schema: { type: 'string' } });
  });

  it('bad input is a 400 that charges nothing; a Free key gets 402 UPGRADE_REQUIRED', async () => {
    const key = await withModel.createKey('Pro');
    const cases = [
      { url: VIDEO },
      { url: VIDEO, prompt: 'x'.repeat(1001) },
      { url: VIDEO, schema: { type: 'object', properties: { a: { type: 'not-a-type' } } } },
      { url: 'ftp://example.com/video.mp4', prompt: 'hi' },
    ];
    for (const body of cases) {
      const reply = await withModel.request('POST', '/v1/video/analysis', { apiKey: key, body });
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(reply.body.error.code).toBe('INVALID_REQUEST');
    }
    expect((await withModel.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(3000);
    const free = await withModel.createKey('Free');
    const refused = await withModel.request('POST', '/v1/video/analysis', { apiKey: free, body: { url: VIDEO, prompt: 'hi' } });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('UPGRADE_REQUIRED');
  });

  it('with no model configured, REST submission is refused at once and charges nothing', async () => {
    const key = await withoutModel.createKey('Pro');
    const reply = await withoutModel.request('POST', '/v1/video/analysis', { apiKey: key, body: { url: VIDEO, prompt: 'hi' } });
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('NOT_CONFIGURED');
    expect(reply.body.error.message).toContain('GLEANER_LLM_URL');
    expect((await withoutModel.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(3000);
  });
});

describe('video_analysis over MCP 2026-07-28 with only the client model (input_required rounds, issue 27)', () => {
  it("the v2 client's model answers inside the call's rounds, and the reply is the one a 2025 client gets", async () => {
    const key = await withoutModel.createKey('Pro');
    const client = await connectMcpV2(withoutModel.baseUrl, key, { sampling: {} });
    expect(client.getProtocolEra()).toBe('modern');
    const prompts: string[] = [];
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const content = request.params.messages[0].content as { type: string; text: string };
      prompts.push(content.text);
      return { role: 'assistant' as const, model: 'client-model', content: { type: 'text' as const, text: JSON.stringify({ summary: 'Sampled.', lines: 3 }) } };
    });
    const before = (await withoutModel.request('GET', '/v1/me', { apiKey: key })).body.credits;
    const result = await client.callTool({ name: 'video_analysis', arguments: { url: VIDEO, schema } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const job = result.structuredContent as { status: string; result: { data: unknown; model: string }; creditsUsed: number };
    expect(job.status).toBe('completed');
    expect(job.result.data).toEqual({ summary: 'Sampled.', lines: 3 });
    expect(job.result.model).toBe('mcp-sampling');
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('Hey, this is just a test');
    // Charged once, for the round that finished: the rounds that stopped for the model charged nothing.
    expect(before - (await withoutModel.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(job.creditsUsed);
    await client.close();
  }, 120_000);

  it('a v2 client that offers no model gets the NOT_CONFIGURED error', async () => {
    const key = await withoutModel.createKey('Pro');
    const client = await connectMcpV2(withoutModel.baseUrl, key);
    const result = await client.callTool({ name: 'video_analysis', arguments: { url: VIDEO, prompt: 'hi' } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(/^NOT_CONFIGURED: .*GLEANER_LLM_URL/);
    await client.close();
  });
});

describe('video_analysis over MCP with only the client model (sampling)', () => {
  it('waits for the job and returns data that validates against the schema', async () => {
    const key = await withoutModel.createKey('Pro');
    const client = new Client({ name: 'sampling-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    const prompts: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const content = request.params.messages[0].content as { type: string; text: string };
      prompts.push(content.text);
      return { role: 'assistant', model: 'client-model', content: { type: 'text', text: JSON.stringify({ summary: 'Sampled.', lines: 3 }) } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${withoutModel.baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    const result = await client.callTool({ name: 'video_analysis', arguments: { url: VIDEO, schema } });
    expect(result.isError).toBeFalsy();
    const job = result.structuredContent as { status: string; result: { data: unknown; model: string } };
    expect(job.status).toBe('completed');
    expect(job.result.data).toEqual({ summary: 'Sampled.', lines: 3 });
    expect(job.result.model).toBe('mcp-sampling');
    expect(prompts[0]).toContain('Hey, this is just a test');
    // The text block is the answer itself, whole (a JSON answer is never cut), not a pointer elsewhere.
    const text = (result.content as Array<{ text: string }>)[0].text;
    expect(text).toContain(JSON.stringify({ summary: 'Sampled.', lines: 3 }, null, 2));
    expect(text).toContain(`Analysis of ${VIDEO} by mcp-sampling`);
    expect(text).not.toMatch(/structuredContent/);
    await client.close();
  });

  it('a long text answer comes in pages through nextCursor, the text block and structuredContent the same part (issue 19.1)', async () => {
    const key = await withoutModel.createKey('Pro');
    const client = new Client({ name: 'sampling-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    const paragraphs = Array.from({ length: 60 }, (_, i) => `Paragraph ${i}: ${'the video shows a lighthouse keeper at work '.repeat(15).trim()}.`);
    const answer = paragraphs.join('\n\n');
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'client-model', content: { type: 'text', text: answer } }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${withoutModel.baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    const pages: Array<{ text: string; structured: any }> = [];
    let args: Record<string, unknown> = { url: VIDEO, prompt: 'Describe it at length.', maxChars: 8_000 };
    for (;;) {
      const result = await client.callTool({ name: 'video_analysis', arguments: args });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      // The page, then its footer in a block of its own (docs/mcp-paging.md).
      const page = { text: (result.content as Array<{ text: string }>).map((part) => part.text).join('\n\n'), structured: result.structuredContent as any };
      pages.push(page);
      expect(page.text).not.toMatch(/structuredContent/);
      // The text block holds exactly this page's part of the answer.
      expect(page.text).toContain(page.structured.result.data);
      if (!page.structured.nextCursor) break;
      expect(page.text).toContain(`cursor="${page.structured.nextCursor}"`);
      args = { cursor: page.structured.nextCursor, maxChars: 8_000 };
      expect(pages.length).toBeLessThan(50);
    }
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.map((p) => p.structured.result.data).join('')).toBe(answer);
    // REST stays whole: the job's record carries the same answer in one piece.
    const rest = await withoutModel.request('GET', `/v1/jobs/${pages[0].structured.jobId}`, { apiKey: key });
    expect(rest.body.result.data).toBe(answer);
    await client.close();
  }, 60_000);
});

describe('AI translation where YouTube offers none', () => {
  it('keeps every segment of the recorded transcript at its offset and duration', async () => {
    const key = await withModel.createKey('Pro');
    const original = await withModel.request('GET', '/v1/youtube/transcript?video_id=F1xioXWb8CY', { apiKey: key });
    expect(original.status).toBe(200);
    chat.script((call) => {
      const list = JSON.parse(/(\[\{"i":0,.*\}\])/.exec(textOf(call.messages[1]))![1]) as Array<{ i: number; text: string }>;
      return JSON.stringify({ segments: list.map(({ i, text }) => ({ i, text: `[tlh] ${text}` })) });
    });
    const translated = await withModel.request('POST', '/v1/youtube/transcript/translate', { apiKey: key, body: { url: 'https://youtu.be/F1xioXWb8CY', targetLang: 'tlh' } });
    expect(translated.status).toBe(200);
    expect(translated.body).toMatchObject({ lang: 'tlh', translatedTo: 'tlh', translatedBy: 'ai' });
    expect(translated.body.content).toHaveLength(original.body.content.length);
    translated.body.content.forEach((segment: { text: string; offset: number; duration: number; lang: string }, i: number) => {
      const source = original.body.content[i];
      expect(segment).toEqual({ text: `[tlh] ${source.text}`, offset: source.offset, duration: source.duration, lang: 'tlh' });
    });
    expect(translated.headers.get('x-credits-used')).toBe(String(30 * Math.ceil(original.body.durationMinutes)));
  });
});
