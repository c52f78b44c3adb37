/**
 * The entry of a document reader process (document-process.ts): loads the readers (pdf.js takes
 * seconds to load, and that time is not a document's), lowers its own data limit, says it is ready,
 * then reads the documents the server sends, one at a time, and sends back each outcome. It exits
 * when the server goes away.
 */
import { execFileSync } from 'node:child_process';
import readDocumentTask, { type DocumentTask, type ReaderReady } from './document-worker.js';
import { READER_MEMORY_MB } from './document-read.js';
import { loadPdfJs } from './pdf.js';
import { dataSizeMb } from './process-memory.js';

/** What the libraries map lazily on the first documents (pdf.js fonts and workers, mammoth): up to 230 MB measured. */
const LAZY_LOADING_MB = 256;

process.on('message', (task: DocumentTask) => {
  void readDocumentTask(task).then((outcome) => process.send?.(outcome));
});
process.on('disconnect', () => process.exit(0));

/**
 * Sets RLIMIT_DATA to what is mapped now plus a document's share, with util-linux's prlimit (Node has no
 * setrlimit). Where prlimit is missing, the looser limit the reader started under stays, and the server's
 * watch of its resident memory still holds READER_MEMORY_MB.
 */
function limitData(dataMb: number): void {
  const limitBytes = Math.ceil(dataMb + READER_MEMORY_MB + LAZY_LOADING_MB) * 1024 * 1024;
  try {
    execFileSync('prlimit', [`--pid=${process.pid}`, `--data=${limitBytes}`], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    // Not Linux, or no prlimit: see above.
  }
}

await loadPdfJs();
const dataMb = dataSizeMb(process.pid);
if (dataMb !== null) limitData(dataMb);
process.send?.({ ready: true, dataMb } satisfies ReaderReady);
