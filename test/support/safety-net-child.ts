/**
 * A process with the entry points' last line installed (src/cli/upstream-faults.ts), for
 * test/processes/net-crash.test.ts. Its argument says what it meets:
 *   - `undici`: 20 downloads through undici WITHOUT the HTTP/1 guard from a server that closes after
 *     each reply, written to disk behind a slow stage (a consumer slower than the socket, as ffmpeg reading a
 *     download is): the close meets a paused body, and undici 7 throws `assert(!this.paused)` from a socket
 *     event. With a consumer as fast as the socket the race is rarely met (a fast disk never met it in 20);
 *   - `bug`: an ordinary exception thrown from a timer (a programming error);
 *   - `rejection`: a promise of undici's left unhandled (a missing catch, also this program's fault).
 * It prints one JSON line `{ "done": ... }` on stdout when it ran to its end; logs go to stderr.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';
import { createLogger } from '../../src/log.js';
import { installUpstreamSafetyNet } from '../../src/cli/upstream-faults.js';
import { startClosingFileServer } from './closing-servers.js';

installUpstreamSafetyNet(createLogger('info'));
const mode = process.argv[2];

if (mode === 'undici') {
  const file = Buffer.from(Array.from({ length: 256 * 1024 }, (_, i) => (i * 7919) % 251));
  const server = await startClosingFileServer(file, 'audio/wav', () => 'close');
  const agent = new Agent();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-safety-net-'));
  const outcomes: string[] = [];
  for (let i = 0; i < 20; i++) {
    try {
      const reply = await request(`${server.origin}/file.wav?n=${i}`, { dispatcher: agent, signal: AbortSignal.timeout(5_000) });
      const target = path.join(dir, `body-${i}`);
      const slowStage = new Transform({ transform: (chunk, _encoding, done) => void setTimeout(() => done(null, chunk), 1) });
      await pipeline(reply.body, slowStage, fs.createWriteStream(target));
      outcomes.push(fs.readFileSync(target).equals(file) ? 'whole' : 'partial');
    } catch (error) {
      outcomes.push(`failed: ${(error as Error).message}`);
    }
  }
  await agent.close().catch(() => undefined);
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ done: outcomes })}\n`);
} else if (mode === 'bug') {
  setTimeout(() => {
    throw new TypeError('a programming error');
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.stdout.write(`${JSON.stringify({ done: 'bug survived' })}\n`);
} else if (mode === 'rejection') {
  // fetch is Node's bundled undici: its rejection's stack starts there, yet nobody catches it.
  void fetch('http://127.0.0.1:1/');
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  process.stdout.write(`${JSON.stringify({ done: 'rejection survived' })}\n`);
}
