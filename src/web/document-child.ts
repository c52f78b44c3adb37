/**
 * The entry of a document reader process (document-process.ts): loads the readers (pdf.js takes
 * seconds to load, and that time is not a document's), says it is ready, then reads the documents
 * the server sends, one at a time, and sends back each outcome. It exits when the server goes away.
 */
import readDocumentTask, { type DocumentTask } from './document-worker.js';
import { loadPdfJs } from './pdf.js';

process.on('message', (task: DocumentTask) => {
  void readDocumentTask(task).then((outcome) => process.send?.(outcome));
});
process.on('disconnect', () => process.exit(0));

await loadPdfJs();
process.send?.({ ready: true });
