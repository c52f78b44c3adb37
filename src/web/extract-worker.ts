/** The body of an extraction worker thread (see extract-pool.ts): one page in, its extraction out. */
import { extractPage, type ExtractedPage, type ExtractOptions } from './extract.js';

export default function extract(task: { html: string; options: ExtractOptions }): ExtractedPage {
  return extractPage(task.html, task.options);
}
