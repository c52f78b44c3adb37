/**
 * A base URL with a query string (Azure OpenAI's api-version, a gateway's token) reaches the
 * endpoint as the operator wrote it, the operation's path after the base's path (issue 28): the chat
 * model and speech to text, against a loopback server that records what it was asked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiChatModel } from '../../src/ai/openai-chat.js';
import { openAiSpeechToText } from '../../src/ai/openai-stt.js';
import { HttpClient } from '../../src/net/http.js';

let server: http.Server;
let origin: string;
const asked: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/gw/v1/chat/completions') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: 'hello' } }] }));
      if (path === '/gw/v1/audio/transcriptions') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'hi there', duration: 1, segments: [{ start: 0, end: 1, text: 'hi there' }] }));
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a base URL with a query string', () => {
  it('the chat model posts to <base path>/chat/completions with the query kept', async () => {
    asked.length = 0;
    const model = openAiChatModel(new HttpClient({ overrides: [] }), { baseUrl: `${origin}/gw/v1?api-version=2024-10-21`, model: 'm' });
    expect(await model.complete({ system: 's', prompt: 'p' })).toBe('hello');
    expect(asked).toEqual(['/gw/v1/chat/completions?api-version=2024-10-21']);
  });

  it('speech to text posts to <base path>/audio/transcriptions with the query kept', async () => {
    asked.length = 0;
    const stt = openAiSpeechToText(new HttpClient({ overrides: [] }), { baseUrl: `${origin}/gw/v1/?token=abc&x=1`, model: 'whisper-1' });
    const result = await stt.transcribe({ data: new Uint8Array([1, 2, 3]), filename: 'a.mp3', contentType: 'audio/mpeg' }, {});
    expect(JSON.stringify(result)).toContain('hi there');
    expect(asked).toEqual(['/gw/v1/audio/transcriptions?token=abc&x=1']);
  });
});
