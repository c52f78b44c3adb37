/**
 * The journal of kept charges' own thread (keep-journal.ts): it appends a group of lines and
 * fdatasyncs them in one go, with the synchronous calls, and answers once they are on the disk. On
 * the event loop the same work was two trips through libuv's threads, each answered only when the
 * loop, busy with requests, came round to it: a group took three times an fdatasync under load.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

export type JournalRequest = { id: number; file: string; bytes: Uint8Array } | { id: number; close: string };
export type JournalReply = { id: number; error?: string };

const port = parentPort!;
const open = new Map<string, number>();

function append(file: string, bytes: Uint8Array): void {
  let fd = open.get(file);
  if (fd === undefined) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND, 0o600);
    open.set(file, fd);
    // The new file's name must survive a power cut too, before any keep in it is answered.
    const folder = fs.openSync(path.dirname(file), 'r');
    try {
      fs.fsyncSync(folder);
    } finally {
      fs.closeSync(folder);
    }
  }
  // A write to a file may be short: the rest follows (O_APPEND), or the recovery would miss lines.
  for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written);
  fs.fdatasyncSync(fd);
}

port.on('message', (request: JournalRequest) => {
  try {
    if ('close' in request) {
      const fd = open.get(request.close);
      open.delete(request.close);
      if (fd !== undefined) fs.closeSync(fd);
    } else {
      append(request.file, request.bytes);
    }
    port.postMessage({ id: request.id } satisfies JournalReply);
  } catch (error) {
    // A file a write failed in is not written again (keep-journal.ts starts a new segment).
    if (!('close' in request)) {
      const fd = open.get(request.file);
      open.delete(request.file);
      if (fd !== undefined) fs.closeSync(fd);
    }
    port.postMessage({ id: request.id, error: (error as Error).message } satisfies JournalReply);
  }
});
