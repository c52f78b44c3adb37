/**
 * An OpenAI-compatible chat-completions server on loopback. It records every request it is sent,
 * and answers each with the next reply the test scripted (a function of the request).
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface ChatCall {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { schema: unknown } };
  authorization?: string;
}

export type ChatReply = string | ((call: ChatCall) => string | Promise<string>);

export interface ChatServer {
  url: string;
  calls: ChatCall[];
  /** Replies for the next calls, in order; when none is left, the last one repeats. */
  script(...replies: ChatReply[]): void;
  close(): Promise<void>;
}

export async function startChatServer(): Promise<ChatServer> {
  const calls: ChatCall[] = [];
  let replies: ChatReply[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatCall;
    const call = { ...body, authorization: req.headers.authorization };
    calls.push(call);
    const reply = replies.length > 1 ? replies.shift()! : replies[0];
    let content: string;
    try {
      content = typeof reply === 'function' ? await reply(call) : (reply ?? '');
    } catch (error) {
      res.writeHead(500).end(JSON.stringify({ error: { message: `test reply failed: ${(error as Error).message}` } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: `chatcmpl-${calls.length}`, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    script: (...next) => {
      replies = next;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
