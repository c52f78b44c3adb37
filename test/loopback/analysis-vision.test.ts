/**
 * Video analysis that sees: frames sampled from the video go to a vision-capable model with the
 * timestamped transcript. The "model" here is a loopback OpenAI-compatible server (and, over MCP,
 * a client answering sampling) that reads the pictures it is sent: it reads the word drawn on each
 * frame (comparing the picture pixel by pixel with renders of candidate words), a fact only the
 * frames of the generated slideshow hold (the slideshow has no sound track, and neither the prompt
 * nor the metadata names its words).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ChatRefusal, imagesOf, startChatServer, textOf, type ChatCall, type ChatServer } from '../support/chat-server.js';
import { generateMedia, makeSlideshow, startMediaServer, startSttServer, wordReader, type MediaServer, type SttServer } from '../support/media.js';
import { sampleFrames, thin } from '../../src/media/frames.js';

const MEDIA = 'https://media.example';
/** The words of the slides, in the order shown. */
const WORDS = ['ORBIT', 'MAPLE', 'QUARTZ', 'HARBOR'];
/** The words the test model knows how to read: the slides' among others, in an order that gives nothing away. */
const VOCABULARY = ['CANYON', 'HARBOR', 'LEMON', 'MAPLE', 'ORBIT', 'PIXEL', 'QUARTZ', 'VELVET', 'WALRUS', 'ZENITH'];
/** GLEANER_ANALYSIS_MAX_FRAMES of the servers below. */
const MAX_FRAMES = 12;
const schema = {
  type: 'object',
  properties: {
    words: { type: 'array', items: { type: 'string' } },
    moments: { type: 'array', items: { type: 'string', pattern: '^\\[\\d\\d:\\d\\d\\]$' } },
  },
  required: ['words', 'moments'],
  additionalProperties: false,
};

let files: MediaServer;
let stt: SttServer;
let chat: ChatServer;
let withModel: TestServer;
let withoutModel: TestServer;
let slideshow: string;
let readWord: (picture: Buffer) => string | undefined;

/** What the vision model answers: the words drawn on the frames in order (repeats merged) and the moment each appears. */
function readFrames(texts: string[], pictures: Buffer[]): string {
  const stamps = texts.join('\n').match(/Frame at (\d\d:\d\d)/g)?.map((s) => `[${s.slice(9)}]`) ?? [];
  const words: string[] = [];
  const moments: string[] = [];
  let last: string | undefined;
  pictures.forEach((picture, i) => {
    const word = readWord(picture);
    if (word === last) return;
    last = word;
    if (word === undefined) return;
    words.push(word);
    moments.push(stamps[i] ?? '[??:??]');
  });
  return JSON.stringify({ words, moments });
}

const visionModel = (call: ChatCall) => {
  const user = call.messages.at(-1)!;
  return readFrames([textOf(user)], imagesOf(user));
};

beforeAll(async () => {
  const media = generateMedia();
  slideshow = makeSlideshow(media.path('slides.mp4'), WORDS, 4);
  readWord = wordReader(VOCABULARY);
  [files, stt, chat] = await Promise.all([startMediaServer(), startSttServer(), startChatServer()]);
  files.serve('/slides.mp4', slideshow, 'video/mp4');
  files.serve('/talk.mp4', media.make('talk.mp4', 12), 'video/mp4');
  const base = { GLEANER_UPSTREAM_OVERRIDES: `media.example=${files.origin}`, GLEANER_STT_URL: stt.url, GLEANER_ANALYSIS_MAX_FRAMES: String(MAX_FRAMES), GLEANER_MCP_WAIT_SECONDS: '100' };
  withModel = await startTestServer({ env: { ...base, GLEANER_LLM_URL: chat.url, GLEANER_LLM_MODEL: 'vision-model' } });
  withoutModel = await startTestServer({ env: base });
}, 300_000);

afterAll(async () => {
  await withModel?.close();
  await withoutModel?.close();
  await Promise.all([files?.close(), stt?.close(), chat?.close()]);
});

async function analyse(server: TestServer, key: string, body: Record<string, unknown>) {
  const started = await server.request('POST', '/v1/video/analysis', { apiKey: key, body });
  expect(started.status).toBe(202);
  const me = (await server.request('GET', '/v1/me', { apiKey: key })).body;
  await server.app.services.jobs.waitFor(started.body.jobId, me.id, 60_000);
  return (await server.request('GET', `/v1/jobs/${started.body.jobId}`, { apiKey: key })).body;
}

describe('frames', () => {
  it('a slideshow gives a frame of every slide, in time order, within the bound', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-frames-'));
    try {
      const frames = await sampleFrames({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe' }, slideshow, dir, { maxFrames: 6 });
      expect(frames.length).toBeGreaterThanOrEqual(WORDS.length);
      expect(frames.length).toBeLessThanOrEqual(6);
      expect(frames.map((f) => f.atSeconds)).toEqual([...frames.map((f) => f.atSeconds)].sort((a, b) => a - b));
      const seen = frames.map((f) => readWord(f.jpeg)).filter((word, i, all) => word !== all[i - 1]);
      expect(seen).toEqual(WORDS);
      // With room for them, each slide change (every 4 s) is a scene change a frame lands right on.
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir);
      const roomy = await sampleFrames({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe' }, slideshow, dir, { maxFrames: 12 });
      expect(roomy.length).toBeLessThanOrEqual(12);
      for (const change of [4, 8, 12]) expect(roomy.some((f) => Math.abs(f.atSeconds - change) < 0.5)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('thinning keeps the first and the last and spreads the rest', () => {
    expect(thin([1, 2, 3, 4, 5, 6, 7, 8, 9], 3)).toEqual([1, 5, 9]);
    expect(thin([1, 2], 5)).toEqual([1, 2]);
  });
});

describe('video_analysis with a configured vision model', () => {
  it('a video without speech is analysed from its frames: the answer holds what only the frames show', async () => {
    const key = await withModel.createKey('Pro');
    chat.script(visionModel);
    const mark = chat.calls.length;
    const job = await analyse(withModel, key, { url: `${MEDIA}/slides.mp4`, prompt: 'Which words are shown, and when does each appear?', schema });
    expect(job.status).toBe('completed');
    expect(job.result.data.words).toEqual(WORDS);
    expect(job.result.data.moments[0]).toBe('[00:00]');
    expect(job.result.data.moments.slice(1)).toEqual(['[00:04]', '[00:08]', '[00:12]']);
    const sent = chat.calls.slice(mark);
    expect(sent).toHaveLength(1);
    const pictures = imagesOf(sent[0].messages.at(-1)!);
    expect(pictures.length).toBe(job.result.frames.count);
    expect(job.result.frames.count).toBeGreaterThanOrEqual(WORDS.length);
    expect(job.result.frames.count).toBeLessThanOrEqual(MAX_FRAMES);
    // Nothing but the pictures named the words: not the prompt, not the metadata.
    for (const word of WORDS) expect(textOf(sent[0].messages.at(-1)!)).not.toContain(word);
    expect(job.result.frames.atSeconds).toHaveLength(job.result.frames.count);
    expect(job.result.notes.join(' ')).toMatch(/No transcript/);
    // 5 credits, as the spec prices an analysis; no speech to text ran for a file without sound.
    expect(job.creditsUsed).toBe(5);
  });

  it('a video with speech sends the timestamped transcript with the frames', async () => {
    const key = await withModel.createKey('Pro');
    stt.reset();
    chat.script(visionModel);
    const mark = chat.calls.length;
    const job = await analyse(withModel, key, { url: `${MEDIA}/talk.mp4`, prompt: 'What is shown?', schema });
    expect(job.status).toBe('completed');
    const user = chat.calls.slice(mark)[0].messages.at(-1)!;
    expect(textOf(user)).toMatch(/Transcript:\n\[00:00\] /);
    expect(imagesOf(user).length).toBeGreaterThan(0);
    expect(imagesOf(user).length).toBe(job.result.frames.count);
    expect(job.result.frames.count).toBeLessThanOrEqual(MAX_FRAMES);
    // The talk's picture is a plain background: no word is read from it.
    expect(job.result.data.words).toEqual([]);
    expect(stt.calls.length).toBeGreaterThan(0);
  });

  it('a model that cannot take images is asked again without them, and the reply says so', async () => {
    const key = await withModel.createKey('Pro');
    const mark = chat.calls.length;
    chat.script((call) => {
      if (imagesOf(call.messages.at(-1)!).length > 0) throw new ChatRefusal(400, 'This model does not support image inputs.');
      return JSON.stringify({ words: [], moments: [] });
    });
    const job = await analyse(withModel, key, { url: `${MEDIA}/slides.mp4`, prompt: 'Which words?', schema });
    expect(job.status).toBe('completed');
    expect(job.result.data).toEqual({ words: [], moments: [] });
    expect(job.result.frames).toEqual({ count: 0, atSeconds: [] });
    expect(job.result.notes.join(' ')).toMatch(/does not take images/);
    const calls = chat.calls.slice(mark);
    const offered = imagesOf(calls[0].messages.at(-1)!).length;
    expect(offered).toBeGreaterThan(0);
    expect(offered).toBeLessThanOrEqual(MAX_FRAMES);
    expect(imagesOf(calls.at(-1)!.messages.at(-1)!)).toHaveLength(0);
  });
});

/** What one sampling request carried: its text parts and its pictures. */
interface SamplingCall {
  texts: string[];
  pictures: Buffer[];
}

/**
 * An MCP client that lends its model through sampling, connected to the server without a model of
 * its own; `answer` is that model. Calls `use` with the client and closes it afterwards.
 */
async function withSamplingClient(key: string, answer: (call: SamplingCall) => string, use: (client: Client, calls: SamplingCall[]) => Promise<void>) {
  const client = new Client({ name: 'vision-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
  const calls: SamplingCall[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const call: SamplingCall = { texts: [], pictures: [] };
    for (const message of request.params.messages) {
      const parts = Array.isArray(message.content) ? message.content : [message.content];
      for (const part of parts) {
        if (part.type === 'text') call.texts.push(part.text);
        if (part.type === 'image') call.pictures.push(Buffer.from(part.data, 'base64'));
      }
    }
    calls.push(call);
    return { role: 'assistant', model: 'client-vision', content: { type: 'text', text: answer(call) } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${withoutModel.baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  try {
    await use(client, calls);
  } finally {
    await client.close();
  }
}

/** The frames, the model's round trip and the answer take seconds, but over a minute beside other suites on 2 cores: past the client's 60 s default (the server waits 100 s for the job, GLEANER_MCP_WAIT_SECONDS). */
const SLOW_CALL_MS = 110_000;

type AnalysisJob = { status: string; result: { data: { words: string[]; moments: string[] }; model: string; notes: string[]; frames: { count: number; atSeconds: number[] } } };

describe('video_analysis over MCP with the client model (sampling)', () => {
  it("the frames go to the client's model as images, within the bound; the answer holds what only they show", async () => {
    const key = await withoutModel.createKey('Pro');
    await withSamplingClient(key, (call) => readFrames(call.texts, call.pictures), async (client, calls) => {
      const result = await client.callTool({ name: 'video_analysis', arguments: { url: `${MEDIA}/slides.mp4`, schema } }, undefined, { timeout: SLOW_CALL_MS });
      expect(result.isError).toBeFalsy();
      const job = result.structuredContent as AnalysisJob;
      expect(job.status).toBe('completed');
      expect(job.result.model).toBe('mcp-sampling');
      expect(job.result.data.words).toEqual(WORDS);
      expect(job.result.data.moments).toEqual(['[00:00]', '[00:04]', '[00:08]', '[00:12]']);
      expect(calls).toHaveLength(1);
      const images = calls[0].pictures.length;
      expect(images).toBe(job.result.frames.count);
      expect(images).toBeGreaterThanOrEqual(WORDS.length);
      expect(images).toBeLessThanOrEqual(MAX_FRAMES);
      for (const word of WORDS) expect(calls[0].texts.join('\n')).not.toContain(word);
    });
  });

  it("a client whose model cannot take images gets the question again without them: transcript-only, with a warning", async () => {
    const key = await withoutModel.createKey('Pro');
    const refuse = (call: SamplingCall) => {
      // What a client says when its model is text-only: the request fails with that reason.
      if (call.pictures.length) throw new Error('The selected model does not support image input.');
      return JSON.stringify({ words: [], moments: [] });
    };
    await withSamplingClient(key, refuse, async (client, calls) => {
      const result = await client.callTool({ name: 'video_analysis', arguments: { url: `${MEDIA}/slides.mp4`, schema } }, undefined, { timeout: SLOW_CALL_MS });
      expect(result.isError).toBeFalsy();
      const job = result.structuredContent as AnalysisJob;
      expect(job.status).toBe('completed');
      expect(job.result.model).toBe('mcp-sampling');
      expect(job.result.data).toEqual({ words: [], moments: [] });
      expect(job.result.frames).toEqual({ count: 0, atSeconds: [] });
      expect(job.result.notes.join(' ')).toMatch(/does not take images.*transcript and metadata only/);
      // Asked twice: first with the frames (within the bound), then with none.
      expect(calls).toHaveLength(2);
      expect(calls[0].pictures.length).toBeGreaterThan(0);
      expect(calls[0].pictures.length).toBeLessThanOrEqual(MAX_FRAMES);
      expect(calls[1].pictures).toHaveLength(0);
      expect(calls[1].texts.join('\n')).not.toMatch(/frames of the video follow/);
    });
  });
});
