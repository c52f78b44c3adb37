/**
 * Scrape conversion (HTML to markdown, main content) over the real fixture pages, by this checkout and by
 * a baseline commit on the same pages in the same run: runs of the two alternate, each in its own process,
 * and the medians are compared (issue 40 holds the extraction to at least the baseline's pages/s).
 *
 * The baseline is `GLEANER_BENCH_BASELINE` (a checkout with its node_modules), else commit BASELINE
 * unpacked into node_modules/.cache/gleaner-bench/<commit> with its own `npm ci` (once; it needs the
 * registry). When that cannot be made, the bench says why and prints this checkout's figure alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { REAL_PAGES_DIR } from '../test/support/fixture-site.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

/** The commit before issue 31's extraction rounds: the speed the extraction is held to. */
export const BASELINE = '8e2315e';
// Five alternating runs of each: with three, single runs on a shared machine moved the median by a tenth.
const RUNS = 5;
const ROUNDS = 3;

interface Run {
  pages: number;
  bytes: number;
  wallMs: number;
  cpuMs: number;
}

/** A checkout of the baseline with its dependencies installed, or the reason there is none. */
function baselineTree(): { tree: string } | { reason: string } {
  const named = process.env.GLEANER_BENCH_BASELINE;
  if (named) return fs.existsSync(path.join(named, 'src/web/extract.ts')) ? { tree: path.resolve(named) } : { reason: `GLEANER_BENCH_BASELINE=${named} holds no src/web/extract.ts` };
  const tree = path.join(root, 'node_modules/.cache/gleaner-bench', BASELINE);
  try {
    if (!fs.existsSync(path.join(tree, 'node_modules'))) {
      console.log(`  checking out ${BASELINE} into ${path.relative(root, tree)} (git archive, npm ci: once)`);
      fs.rmSync(tree, { recursive: true, force: true });
      fs.mkdirSync(tree, { recursive: true });
      const archive = execFileSync('git', ['-C', root, 'archive', '--format=tar', BASELINE], { maxBuffer: 512 * 1024 * 1024 });
      execFileSync('tar', ['-x', '-C', tree], { input: archive });
      execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: tree, stdio: 'ignore' });
    }
    return { tree };
  } catch (error) {
    fs.rmSync(path.join(tree, 'node_modules'), { recursive: true, force: true });
    return { reason: (error as Error).message.split('\n')[0] };
  }
}

async function convertIn(tree: string): Promise<Run> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(here, 'web-convert-child.ts'), tree, REAL_PAGES_DIR, String(ROUNDS)], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Run;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const perSecond = (runs: Run[], key: 'wallMs' | 'cpuMs') => median(runs.map((r) => (r.pages / r[key]) * 1000));

export async function benchConversion(): Promise<void> {
  const baseline = baselineTree();
  const trees: Array<[label: string, tree: string]> = [['this checkout', root]];
  if ('tree' in baseline) trees.push([`${BASELINE} (baseline)`, baseline.tree]);
  else console.log(`  no baseline checkout of ${BASELINE} (${baseline.reason}): this checkout's figure alone`);
  const runs = new Map<string, Run[]>(trees.map(([label]) => [label, []]));
  // Alternating order, so that a slower or busier stretch of the machine weighs on both.
  for (let i = 0; i < RUNS; i++) {
    for (const [label, tree] of i % 2 ? [...trees].reverse() : trees) runs.get(label)!.push(await convertIn(tree));
  }
  const first = runs.get(trees[0][0])![0];
  console.log(
    `\nscrape conversion (main content to markdown): ${first.pages / ROUNDS} real pages (${(first.bytes / first.pages / 1024).toFixed(0)} KB average), ` +
      `medians of ${RUNS} alternating runs of ${ROUNDS} rounds`,
  );
  for (const [label] of trees) {
    const list = runs.get(label)!;
    console.log(`  ${label.padEnd(22)} ${perSecond(list, 'wallMs').toFixed(1)} pages/s (${perSecond(list, 'cpuMs').toFixed(1)} a CPU second)`);
  }
  if (trees.length === 2) {
    const [mine, theirs] = trees.map(([label]) => runs.get(label)!);
    console.log(
      `  ratio to ${BASELINE}: ${(perSecond(mine, 'wallMs') / perSecond(theirs, 'wallMs')).toFixed(2)}x pages/s, ` +
        `${(perSecond(mine, 'cpuMs') / perSecond(theirs, 'cpuMs')).toFixed(2)}x a CPU second (goal >= 1.0)`,
    );
  }
}
