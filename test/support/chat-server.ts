/**
 * An OpenAI-compatible chat-completions server on loopback. It records every request it is sent,
 * and answers each with the next reply the test scripted (a function of the request).
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** A part of a message that carries pictures (OpenAI's content array). */
export type ChatPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } };

export interface ChatCall {
  model: string;
  messages: Array<{ role: string; content: string | ChatPart[] }>;
  response_format?: { type: string; json_schema?: { schema: unknown } };
  authorization?: string;
}

/** The text of a message, whether it is a string or a content array. */
export function textOf(message: { content: string | ChatPart[] }): string {
  return typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** The pictures of a message (data URLs decoded), in order. */
export function imagesOf(message: { content: string | ChatPart[] }): Buffer[] {
  if (typeof message.content === 'string') return [];
  return message.content.filter((part) => part.type === 'image_url').map((part) => Buffer.from((part as { image_url: { url: string } }).image_url.url.split(',')[1], 'base64'));
}

/** Thrown by a scripted reply: the server answers that status with the message, as an endpoint refusing a request does. */
export class ChatRefusal extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
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
      if (error instanceof ChatRefusal) {
        res.writeHead(error.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: error.message } }));
        return;
      }
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
