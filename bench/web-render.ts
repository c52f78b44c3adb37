/**
 * Rendered crawl: a recursive crawl of an app-shell site on loopback (every page's article and links
 * are built by a script from a JSON API; test/support/app-shell-site.ts) by Gleaner (render=auto)
 * and by Crawlee's PlaywrightCrawler, each in its own process driving the same Chromium at the same
 * concurrency. Memory is the peak of the summed RSS of the crawler's process and all its
 * descendants (the browser's processes), sampled every 100 ms.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startAppShellSite } from '../test/support/app-shell-site.js';
import { locateBrowser } from '../src/web/render/locate.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAGES = 100;
const LATENCY_MS = 50;
const CONCURRENCY = 4;

/** Summed RSS and PSS (MB) of a process and its descendants, from /proc (PSS splits shared pages fairly). */
function treeMemoryMB(root: number): { rss: number; pss: number } {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      rss.set(pid, Number(fields[21]) * 4096);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // exited meanwhile
    }
  }
  let total = 0;
  let pss = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += rss.get(pid) ?? 0;
    try {
      pss += Number(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+) kB/m)?.[1] ?? 0) * 1024;
    } catch {
      // exited meanwhile
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return { rss: total / 1024 / 1024, pss: pss / 1024 / 1024 };
}

async function crawlIn(which: 'gleaner' | 'crawlee', origin: string, browserPath: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'web-render-child.ts'), which, origin, String(CONCURRENCY), String(PAGES), browserPath], {
    env: { ...process.env, CRAWLEE_LOG_LEVEL: 'OFF', CRAWLEE_PERSIST_STORAGE: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let peak = 0;
  let peakPss = 0;
  const sampler = setInterval(() => {
    const memory = treeMemoryMB(child.pid!);
    peak = Math.max(peak, memory.rss);
    peakPss = Math.max(peakPss, memory.pss);
  }, 100);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(sampler);
  const line = stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (code !== 0 || !line) throw new Error(`exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { ...(JSON.parse(line) as { pages: number; withArticle: number; wallMs: number }), peakTreeRssMB: peak, peakTreePssMB: peakPss };
}

export async function benchRender(): Promise<void> {
  const browser = locateBrowser({ browserPath: process.env.GLEANER_BROWSER_PATH });
  console.log(`\nrendered crawl: ${PAGES}-page app-shell site (article and links built by script), ${LATENCY_MS} ms latency a page, concurrency ${CONCURRENCY}`);
  if (browser.kind !== 'local') {
    console.log(`  skipped: ${browser.kind === 'none' ? browser.reason : 'the bench drives a local Chromium'}`);
    return;
  }
  const rates: Partial<Record<'gleaner' | 'crawlee', { rate: number; rss: number; pss: number }>> = {};
  for (const which of ['gleaner', 'crawlee'] as const) {
    const site = await startAppShellSite({ pages: PAGES, latencyMs: LATENCY_MS });
    try {
      const result = await crawlIn(which, site.origin, browser.executablePath);
      const rate = (result.pages / result.wallMs) * 1000;
      rates[which] = { rate, rss: result.peakTreeRssMB, pss: result.peakTreePssMB };
      const label = which === 'gleaner' ? 'Gleaner crawl, render=auto (markdown)' : 'Crawlee PlaywrightCrawler (text)     ';
      console.log(
        `  ${label}: ${result.pages} pages (${result.withArticle} with their article) in ${result.wallMs.toFixed(0)} ms = ${rate.toFixed(1)} pages/s, ` +
          `peak memory with the browser ${result.peakTreeRssMB.toFixed(0)} MB RSS (${result.peakTreePssMB.toFixed(0)} MB PSS), ${site.requests.length} requests`,
      );
    } catch (error) {
      console.log(`  ${which}: failed: ${(error as Error).message.split('\n')[0]}`);
    } finally {
      await site.close();
    }
  }
  if (rates.gleaner && rates.crawlee) {
    console.log(
      `  ratios: Gleaner ${(rates.gleaner.rate / rates.crawlee.rate).toFixed(2)}x Crawlee's pages/s (goal >= 1), ` +
        `${(rates.gleaner.rss / rates.crawlee.rss).toFixed(2)}x its peak RSS and ${(rates.gleaner.pss / rates.crawlee.pss).toFixed(2)}x its peak PSS (goal <= 1), on ${os.availableParallelism()} cores (load ${os.loadavg()[0].toFixed(1)})`,
    );
  }
}
