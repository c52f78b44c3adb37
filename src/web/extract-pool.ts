/**
 * Page extraction (Readability + markdown) on worker threads, so a crawl is bound by the network and
 * not by the one core of the event loop. Piscina runs the pool; it starts on first use, keeps at
 * least one thread warm, and gives the rest back when idle.
 *
 * The worker file is extract-worker.js next to this module in dist/; run from the TypeScript
 * sources (tsx, vitest) it is the .ts file, and the threads load tsx to read it.
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import type { ExtractedPage, ExtractOptions } from './extract.js';

let pool: Piscina | undefined;

function extractPool(): Piscina {
  if (pool) return pool;
  const fromSources = import.meta.url.endsWith('.ts');
  const filename = new URL(fromSources ? './extract-worker.ts' : './extract-worker.js', import.meta.url).href;
  pool = new Piscina({
    filename,
    // One thread a core but one: the event loop keeps a core for fetching, decompressing and
    // following links (on 2 cores a second thread made the 500-page crawl bench slower, not faster).
    maxThreads: Math.max(1, os.availableParallelism() - 1),
    minThreads: 1,
    idleTimeout: 30_000,
    execArgv: fromSources ? ['--import', import.meta.resolve('tsx')] : [],
  });
  return pool;
}

export function extractOffThread(html: string, options: ExtractOptions): Promise<ExtractedPage> {
  return extractPool().run({ html, options }) as Promise<ExtractedPage>;
}

/** Pages extracted by the threads since the pool started (tests). */
export function extractionsOffThread(): number {
  return pool?.completed ?? 0;
}

/** Starts the threads now (a crawl does while it reads robots.txt and the sitemaps). */
export function warmExtractPool(): void {
  extractPool();
}

/** Stops the threads (at shutdown; the next use starts a new pool). */
export async function closeExtractPool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
