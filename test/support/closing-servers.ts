/**
 * Raw TCP servers that speak HTTP the way small hosts do, for the tests of servers that close
 * connections (issue 19 item 4). Python's http.server answers `HTTP/1.0` and closes the connection
 * after each reply; some close in the middle of a body; a speech-to-text endpoint of that kind may
 * answer before it has read the upload and close the connection with the upload unread. node:http
 * cannot be made to do these, so the replies are written byte by byte on node:net sockets.
 */
import net from 'node:net';
import { once } from 'node:events';

export interface RawServer {
  origin: string;
  /** Requests answered (one per connection: these servers never keep one alive). */
  answered: number;
  /** Resolves once `count` replies have been sent whole, the server's end of the connection closed (FIN) after each. */
  finishedAtLeast(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Reads one request head off a socket; resolves with the head and the body bytes already read. */
function readHead(socket: net.Socket): Promise<{ head: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.pause();
      resolve({ head: buffered.subarray(0, end).toString('latin1'), rest: buffered.subarray(end + 4) });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('end', () => reject(new Error('closed before a request head')));
  });
}

/** Reads the rest of a request body (by Content-Length, or to the chunked terminator) after its head. */
async function readBody(socket: net.Socket, head: string, rest: Buffer): Promise<void> {
  const declared = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
  let received = rest.length;
  let tail = rest.subarray(-5);
  const done = () => (declared ? received >= Number(declared[1]) : chunked ? tail.toString('latin1') === '0\r\n\r\n' : true);
  if (done()) return;
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      tail = Buffer.concat([tail, chunk]).subarray(-5);
      if (done()) resolve();
    });
    socket.once('end', () => reject(new Error('closed in the middle of the upload')));
    socket.resume();
  });
}

function startRaw(handle: (socket: net.Socket, state: RawServer) => Promise<void>): Promise<RawServer> {
  const sockets = new Set<net.Socket>();
  let finished = 0;
  const waiters: Array<() => void> = [];
  const state: RawServer = {
    origin: '',
    answered: 0,
    finishedAtLeast: (count) => (finished >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(() => finished >= count && resolve()))),
    close: async () => undefined,
  };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('finish', () => {
      finished++;
      for (const wake of [...waiters]) wake();
    });
    socket.on('error', () => undefined);
    handle(socket, state).catch(() => socket.destroy());
  });
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => {
    state.origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    state.close = async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    return state;
  });
}

export type FileServerMode =
  /** Python's http.server: HTTP/1.0, Content-Length, the whole file, then the connection closes. */
  | 'close'
  /** HTTP/1.0 without a length: the body ends where the connection does. */
  | 'close-no-length'
  /** A Content-Length, half of the body, then the connection closes. */
  | 'close-mid-body';

/** Serves `body` at every path, closing the connection after each reply as `mode` says. */
export function startClosingFileServer(body: Buffer, contentType: string, mode: () => FileServerMode): Promise<RawServer> {
  return startRaw(async (socket, state) => {
    await readHead(socket);
    const how = mode();
    const length = how === 'close-no-length' ? '' : `Content-Length: ${body.length}\r\n`;
    socket.write(`HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6 Python/3.12\r\nContent-Type: ${contentType}\r\n${length}\r\n`);
    socket.end(how === 'close-mid-body' ? body.subarray(0, Math.floor(body.length / 2)) : body);
    state.answered++;
  });
}

export type SttServerMode =
  /** Reads the whole upload, then answers (HTTP/1.0) and closes. */
  | 'read'
  /** Answers as soon as the request head is in and closes with the upload unread (the peer sees a reset). */
  | 'early';

/**
 * An OpenAI-compatible /audio/transcriptions endpoint of the closing kind. Its answer is
 * `reply()` (verbose_json), written as HTTP/1.0 whatever the mode.
 */
export function startClosingSttServer(mode: () => SttServerMode, reply: () => object): Promise<RawServer & { url: string }> {
  return startRaw(async (socket, state) => {
    const { head, rest } = await readHead(socket);
    const how = mode();
    if (how === 'read') await readBody(socket, head, rest);
    const json = Buffer.from(JSON.stringify(reply()));
    socket.write(`HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n`);
    state.answered++;
    // Closing a socket with unread data in it sends a reset, as a server that never read the upload does.
    socket.end(json, () => socket.destroy());
  }).then((server) => Object.assign(server, { url: `${server.origin}/v1` }));
}
