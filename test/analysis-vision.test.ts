/**
 * Video analysis that sees: frames sampled from the video go to a vision-capable model with the
 * timestamped transcript. The "model" here is a loopback OpenAI-compatible server (and, over MCP,
 * a client answering sampling) that reads the pictures it is sent: it names each frame's colour,
 * a fact only the frames of the generated slideshow hold (the slideshow has no sound track).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { ChatRefusal, imagesOf, startChatServer, textOf, type ChatCall, type ChatServer } from './support/chat-server.js';
import { colourOf, generateMedia, makeSlideshow, startMediaServer, startSttServer, type MediaServer, type SttServer } from './support/media.js';
import { sampleFrames, thin } from '../src/media/frames.js';

const MEDIA = 'https://media.example';
const COLOURS = ['red', 'green', 'blue', 'yellow'];
const schema = {
  type: 'object',
  properties: {
    colours: { type: 'array', items: { type: 'string' } },
    moments: { type: 'array', items: { type: 'string', pattern: '^\\[\\d\\d:\\d\\d\\]$' } },
  },
  required: ['colours', 'moments'],
  additionalProperties: false,
};

let files: MediaServer;
let stt: SttServer;
let chat: ChatServer;
let withModel: TestServer;
let withoutModel: TestServer;
let slideshow: string;

/** What the vision model answers: the colours of the frames in order (repeats merged) and the moment of each change. */
function readFrames(texts: string[], pictures: Buffer[]): string {
  const stamps = texts.join('\n').match(/Frame at (\d\d:\d\d)/g)?.map((s) => `[${s.slice(9)}]`) ?? [];
  const colours: string[] = [];
  const moments: string[] = [];
  pictures.forEach((picture, i) => {
    const colour = colourOf(picture);
    if (colours.at(-1) === colour) return;
    colours.push(colour);
    moments.push(stamps[i] ?? '[??:??]');
  });
  return JSON.stringify({ colours, moments });
}

const visionModel = (call: ChatCall) => {
  const user = call.messages.at(-1)!;
  return readFrames([textOf(user)], imagesOf(user));
};

beforeAll(async () => {
  const media = generateMedia();
  slideshow = makeSlideshow(media.path('slides.mp4'), COLOURS, 4);
  [files, stt, chat] = await Promise.all([startMediaServer(), startSttServer(), startChatServer()]);
  files.serve('/slides.mp4', slideshow, 'video/mp4');
  files.serve('/talk.mp4', media.make('talk.mp4', 12), 'video/mp4');
  const base = { GLEANER_UPSTREAM_OVERRIDES: `media.example=${files.origin}`, GLEANER_STT_URL: stt.url, GLEANER_ANALYSIS_MAX_FRAMES: '12', GLEANER_MCP_WAIT_SECONDS: '60' };
  withModel = await startTestServer({ env: { ...base, GLEANER_LLM_URL: chat.url, GLEANER_LLM_MODEL: 'vision-model' } });
  withoutModel = await startTestServer({ env: base });
}, 120_000);

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
      expect(frames.length).toBeGreaterThanOrEqual(COLOURS.length);
      expect(frames.length).toBeLessThanOrEqual(6);
      expect(frames.map((f) => f.atSeconds)).toEqual([...frames.map((f) => f.atSeconds)].sort((a, b) => a - b));
      const seen = frames.map((f) => colourOf(f.jpeg)).filter((c, i, all) => c !== all[i - 1]);
      expect(seen).toEqual(COLOURS);
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
    const job = await analyse(withModel, key, { url: `${MEDIA}/slides.mp4`, prompt: 'Which colours are shown, and when does each begin?', schema });
    expect(job.status).toBe('completed');
    expect(job.result.data.colours).toEqual(COLOURS);
    expect(job.result.data.moments[0]).toBe('[00:00]');
    expect(job.result.data.moments.slice(1)).toEqual(['[00:04]', '[00:08]', '[00:12]']);
    const sent = chat.calls.slice(mark);
    expect(sent).toHaveLength(1);
    const pictures = imagesOf(sent[0].messages.at(-1)!);
    expect(pictures.length).toBe(job.result.frames.count);
    expect(job.result.frames.count).toBeGreaterThanOrEqual(COLOURS.length);
    expect(job.result.frames.count).toBeLessThanOrEqual(12);
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
    expect(job.result.data.colours).toEqual(['navy']);
    expect(stt.calls.length).toBeGreaterThan(0);
  });

  it('a model that cannot take images is asked again without them, and the reply says so', async () => {
    const key = await withModel.createKey('Pro');
    const mark = chat.calls.length;
    chat.script((call) => {
      if (imagesOf(call.messages.at(-1)!).length > 0) throw new ChatRefusal(400, 'This model does not support image inputs.');
      return JSON.stringify({ colours: [], moments: [] });
    });
    const job = await analyse(withModel, key, { url: `${MEDIA}/slides.mp4`, prompt: 'Which colours?', schema });
    expect(job.status).toBe('completed');
    expect(job.result.data).toEqual({ colours: [], moments: [] });
    expect(job.result.frames).toEqual({ count: 0, atSeconds: [] });
    expect(job.result.notes.join(' ')).toMatch(/does not take images/);
    const calls = chat.calls.slice(mark);
    expect(imagesOf(calls.at(-1)!.messages.at(-1)!)).toHaveLength(0);
  });
});

describe('video_analysis over MCP with the client model (sampling)', () => {
  it("the frames go to the client's model as images; the answer holds what only they show", async () => {
    const key = await withoutModel.createKey('Pro');
    const client = new Client({ name: 'vision-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    let images = 0;
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const texts: string[] = [];
      const pictures: Buffer[] = [];
      for (const message of request.params.messages) {
        const parts = Array.isArray(message.content) ? message.content : [message.content];
        for (const part of parts) {
          if (part.type === 'text') texts.push(part.text);
          if (part.type === 'image') pictures.push(Buffer.from(part.data, 'base64'));
        }
      }
      images += pictures.length;
      return { role: 'assistant', model: 'client-vision', content: { type: 'text', text: readFrames(texts, pictures) } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${withoutModel.baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    try {
      const result = await client.callTool({ name: 'video_analysis', arguments: { url: `${MEDIA}/slides.mp4`, schema } });
      expect(result.isError).toBeFalsy();
      const job = result.structuredContent as { status: string; result: { data: { colours: string[] }; model: string; frames: { count: number } } };
      expect(job.status).toBe('completed');
      expect(job.result.model).toBe('mcp-sampling');
      expect(job.result.data.colours).toEqual(COLOURS);
      expect(images).toBe(job.result.frames.count);
    } finally {
      await client.close();
    }
  });
});
