import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startChatServer, textOf, type ChatServer } from '../support/chat-server.js';
import { openAiChatModel } from '../../src/ai/openai-chat.js';
import { analyzeVideo } from '../../src/ai/analyze.js';
import { schemaProblem } from '../../src/ai/json-schema.js';
import { HttpClient } from '../../src/net/http.js';
import type { TranscriptResponse } from '../../src/model/content.js';

let chat: ChatServer;
beforeAll(async () => {
  chat = await startChatServer();
});
afterAll(() => chat.close());
beforeEach(() => {
  chat.calls.length = 0;
});

const transcript: TranscriptResponse = {
  lang: 'en',
  aiGenerated: false,
  durationMinutes: 1,
  cached: false,
  content: [
    { text: 'Welcome to the kitchen.', offset: 0, duration: 2000, lang: 'en' },
    { text: 'Today we bake bread with flour, water and salt.', offset: 2000, duration: 4000, lang: 'en' },
  ],
};
const schema = {
  type: 'object',
  properties: { topic: { type: 'string' }, ingredients: { type: 'array', items: { type: 'string' }, minItems: 1 } },
  required: ['topic', 'ingredients'],
  additionalProperties: false,
};

function model() {
  return openAiChatModel(new HttpClient({ overrides: [] }), { baseUrl: chat.url, apiKey: 'sk-test', model: 'test-model' });
}

describe('analysis through an OpenAI-compatible endpoint', () => {
  it('sends the transcript, metadata and schema with structured output, and returns validated data', async () => {
    chat.script(JSON.stringify({ topic: 'baking bread', ingredients: ['flour', 'water', 'salt'] }));
    const result = await analyzeVideo(model(), { prompt: 'What is cooked?', schema, metadata: null, transcript, contextChars: 10_000 });
    expect(result.data).toEqual({ topic: 'baking bread', ingredients: ['flour', 'water', 'salt'] });
    expect(result.schema).toEqual(schema);
    const [call] = chat.calls;
    expect(call.model).toBe('test-model');
    expect(call.authorization).toBe('Bearer sk-test');
    expect(call.response_format?.type).toBe('json_schema');
    expect(call.response_format?.json_schema?.schema).toEqual(schema);
    const user = call.messages.find((m) => m.role === 'user')!.content;
    expect(user).toContain('What is cooked?');
    expect(user).toContain('[00:02] Today we bake bread with flour, water and salt.');
  });

  it('retries once with the validation errors when the first answer violates the schema', async () => {
    chat.script(JSON.stringify({ topic: 'bread' }), '```json\n{"topic":"bread","ingredients":["flour"]}\n```');
    const result = await analyzeVideo(model(), { schema, metadata: null, transcript, contextChars: 10_000 });
    expect(result.data).toEqual({ topic: 'bread', ingredients: ['flour'] });
    expect(chat.calls).toHaveLength(2);
    expect(chat.calls[1].messages.at(-1)!.content).toMatch(/must have required property 'ingredients'/);
    expect(result.notes.join(' ')).toMatch(/retry/);
  });

  it('fails with a clear error when the answer never validates', async () => {
    chat.script('I think it is about bread.');
    await expect(analyzeVideo(model(), { schema, metadata: null, transcript, contextChars: 10_000 })).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: expect.stringMatching(/did not follow the schema.*not valid JSON/),
    });
    expect(chat.calls).toHaveLength(2);
  });

  it('answers a prompt alone with text', async () => {
    chat.script('It is a bread-baking lesson.');
    const result = await analyzeVideo(model(), { prompt: 'Summarise.', metadata: null, transcript, contextChars: 10_000 });
    expect(result.data).toBe('It is a bread-baking lesson.');
    expect(chat.calls[0].response_format).toBeUndefined();
  });

  it('condenses a transcript longer than the budget in parts, and says so', async () => {
    const long: TranscriptResponse = {
      ...transcript,
      content: Array.from({ length: 400 }, (_, i) => ({ text: `Sentence number ${i} about bread.`, offset: i * 1000, duration: 1000, lang: 'en' })),
    };
    chat.script((call) => (call.response_format ? JSON.stringify({ topic: 'bread', ingredients: ['flour'] }) : `notes of a part`));
    const result = await analyzeVideo(model(), { prompt: 'Topic?', schema, metadata: null, transcript: long, contextChars: 4_000 });
    const parts = chat.calls.length - 1;
    expect(parts).toBeGreaterThanOrEqual(4);
    for (const call of chat.calls.slice(0, parts)) expect(call.messages[1].content.length).toBeLessThan(4_000 + 600);
    expect(chat.calls.at(-1)!.messages[1].content).toContain('Notes on part 1');
    expect(result.notes.join(' ')).toMatch(/condensed in \d+ parts/);
  });

  it('an invalid JSON Schema is recognised', () => {
    expect(schemaProblem({ type: 'object', properties: { a: { type: 'nonsense' } } })).toBeDefined();
    expect(schemaProblem(schema)).toBeUndefined();
  });
});

describe('AI translation of segments', () => {
  it('keeps every offset and duration, in batches, and sets the language', async () => {
    const { translateSegments } = await import('../../src/ai/translate.js');
    const segments = Array.from({ length: 95 }, (_, i) => ({ text: `Satz ${i}`, offset: i * 1500, duration: 1400 + i, lang: 'de' }));
    chat.script((call) => {
      const list = JSON.parse(/(\[\{"i":0,.*\}\])/.exec(textOf(call.messages[1]))![1]) as Array<{ i: number; text: string }>;
      return JSON.stringify({ segments: list.map(({ i, text }) => ({ i, text: text.replace('Satz', 'Sentence') })) });
    });
    const result = await translateSegments(model(), segments, 'en');
    expect(chat.calls).toHaveLength(3);
    expect(result).toHaveLength(95);
    result.forEach((segment, i) => {
      expect(segment).toEqual({ text: `Sentence ${i}`, offset: segments[i].offset, duration: segments[i].duration, lang: 'en' });
    });
  });
});
