/** `npx tsx bench/documents-run.ts`: the document benchmark alone. */
import { benchDocuments } from './documents.js';

await benchDocuments();
