/**
 * The README's shell commands, run as written, so a command there that stops working fails CI.
 *
 * Every line of every ```sh block of README.md is run, in order, unless this file says why not
 * (EXCEPTIONS below); a new line is run by default. `npm start` lines are started in the background
 * and waited for (/healthz); the other lines run in one bash (`set -euo pipefail`), so a variable set
 * by one line (KEY) reaches the next. Only two things differ from a person's shell: the port (a free
 * one instead of 8080, which another program may hold; `127.0.0.1:8080` in the commands is rewritten
 * to it) and where example.com is (GLEANER_UPSTREAM_OVERRIDES sends it to a page served here: no
 * network). The data folder is a fresh temporary one.
 *
 * In `npm test` the commands run in this checkout (`npm install` is left out: the checkout is
 * installed). With GLEANER_README_CLONE=1 (.ci/run sets it) they run on a fresh `git clone` of the
 * checkout's HEAD, `npm install` and the CI-only lines included.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/processes.js';

const CLONE = process.env.GLEANER_README_CLONE === '1';

/** Lines not run in every mode, and why. Anything else in a ```sh block is run. */
const EXCEPTIONS: Array<{ line: RegExp; only?: 'clone'; never?: string }> = [
  // The checkout that runs `npm test` is installed already; a fresh clone is not.
  { line: /^npm install$/, only: 'clone' },
  // The type check takes a minute; .ci/run runs it on the checkout as well.
  { line: /^npm run typecheck$/, only: 'clone' },
  { line: /^npm test\b/, never: 'the suite this test belongs to; .ci/run runs it' },
  // A tier of the suite this test belongs to: run on a fresh clone only, where nothing else runs it.
  { line: /^npm run test:unit\b/, only: 'clone' },
];

const readme = fs.readFileSync('README.md', 'utf8');

function shellLines(text: string): string[] {
  const lines: string[] = [];
  for (const block of text.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)) {
    for (const line of block[1].split('\n')) if (line.trim() && !line.trim().startsWith('#')) lines.push(line);
  }
  return lines;
}

/** The command without its trailing comment (comments in the README are `   # ...`). */
const command = (line: string) => line.replace(/\s+#\s.*$/, '').trim();
const isServe = (line: string) => /(^|\s)npm start$/.test(command(line));

function runs(line: string): boolean {
  const rule = EXCEPTIONS.find((exception) => exception.line.test(command(line)));
  if (!rule) return true;
  if (rule.never) return false;
  return rule.only === 'clone' ? CLONE : true;
}

const PAGE = `<!doctype html><html lang="en"><head><title>Readme fixture page</title></head><body>
<article><h1>Gleaning in the fields</h1>
<p>Gleaning is the act of collecting leftover crops from farmers' fields after they have been commercially harvested.
Some ancient cultures promoted gleaning as an early form of a welfare system.</p>
<p>In the Middle Ages gleaning was a right of the poor of the parish, and a bell rang to start and end the day's gleaning.</p>
</article></body></html>`;

describe('the README commands, as written', () => {
  let tmp: string;
  let dir: string;
  let dataDir: string;
  let site: http.Server;
  let sitePort: number;
  let port: number;
  const servers: ChildProcess[] = [];

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-readme-'));
    dataDir = path.join(tmp, 'data');
    if (CLONE) {
      dir = path.join(tmp, 'clone');
      execFileSync('git', ['clone', '--quiet', process.cwd(), dir]);
    } else {
      dir = process.cwd();
    }
    site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as { port: number }).port;
    port = await freePort();
  });

  afterAll(async () => {
    for (const child of servers) await stopped(child);
    await new Promise((resolve) => site?.close(resolve));
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}) => ({
    ...process.env,
    GLEANER_DATA_DIR: dataDir,
    GLEANER_PORT: String(port),
    GLEANER_UPSTREAM_OVERRIDES: `example.com=http://127.0.0.1:${sitePort}`,
    GLEANER_LOG_LEVEL: 'warn',
    ...extra,
  });
  const local = (line: string) => line.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);

  /** A serve line in the background, in its own process group (npm → sh → node), until /healthz answers. */
  async function serve(line: string): Promise<{ child: ChildProcess; stdout: () => string }> {
    const child = spawn('bash', ['-c', local(line)], { cwd: dir, env: env(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    servers.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`"${line}" exited ${child.exitCode}:\n${out}\n${err}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((reply) => reply.ok, () => false);
      if (ok) return { child, stdout: () => out };
      if (Date.now() > deadline) throw new Error(`"${line}" did not answer /healthz in 120 s:\n${out}\n${err}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }

  function stop(child: ChildProcess) {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }

  /** Stops a serve line and waits until every process of its group (bash, npm, node) has gone. */
  async function stopped(child: ChildProcess) {
    stop(child);
    const groupAlive = () => {
      try {
        process.kill(-child.pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (const deadline = Date.now() + 20_000; groupAlive() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 100));
  }

  it('has commands, and every one the test leaves out says why', () => {
    const lines = shellLines(readme);
    expect(lines.length).toBeGreaterThan(4);
    expect(lines.filter(isServe)).toHaveLength(1);
    // The test command of the README is the one .ci/run runs.
    expect(lines.map(command)).toContain('npm test');
    expect(fs.readFileSync('.ci/run', 'utf8')).toMatch(/^npm test\b/m);
  });

  it('set-up, a key in a shell variable, the calls and the command line work', { timeout: CLONE ? 1_200_000 : 240_000 }, async () => {
    const lines = shellLines(readme).filter(runs);
    const serveAt = lines.findIndex(isServe);
    const before = lines.slice(0, serveAt);
    const after = lines.slice(serveAt + 1);
    // Asynchronous: the page for example.com is served by this very process.
    const bash = (script: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn('bash', ['-c', ['set -euo pipefail', ...script.map(local)].join('\n')], { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });

    if (before.length) {
      const setup = await bash(before);
      expect(setup.status, `${before.join('\n')}\n${setup.stdout}\n${setup.stderr}`).toBe(0);
    }
    const server = await serve(lines[serveAt]);
    // "The first start with no keys creates an owner key (Enterprise plan) and prints it once."
    expect(server.stdout()).toMatch(/owner key \(Enterprise plan.*\n\n {2}gl_[A-Za-z0-9_-]{32}\n/s);

    const result = await bash(after);
    expect(result.status, `${after.join('\n')}\n${result.stdout}\n${result.stderr}`).toBe(0);
    // /v1/me answered for the key in $KEY, and the scrape returned the page as markdown.
    expect(result.stdout).toContain('"plan":"Pro"');
    expect(result.stdout).toContain('"title":"Readme fixture page"');
    expect(result.stdout).toContain('Gleaning in the fields');
    expect(result.stdout).toContain('a bell rang to start and end');
    // /v1/me says whether the allowance is unlimited, as the README says; the crawl was started (its job id
    // taken from the reply) and read: scraping while it runs, or completed with its pages, not an error.
    expect(result.stdout).toContain('"unlimited":false');
    expect(result.stdout).toMatch(/\{"status":"(scraping","error":null\}|completed","pages":\[)/);
    expect(result.stdout).toContain('Usage: gleaner <command>');
    expect(result.stdout).toMatch(/\bme\b/);
    expect(result.stdout).toContain('Usage: gleaner doctor');

    // Without the private-URL setting a page on this machine is refused, as the README says.
    const key = /gl_[A-Za-z0-9_-]{32}/.exec(server.stdout())![0];
    const refused = await fetch(`http://127.0.0.1:${port}/v1/web/scrape?url=${encodeURIComponent(`http://127.0.0.1:${sitePort}/`)}`, { headers: { 'x-api-key': key } });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('URL_NOT_ALLOWED');
    await stopped(server.child);

    // "start the server as `GLEANER_ALLOW_PRIVATE_URLS=true npm start`": then it reads that page.
    const variant = /`(GLEANER_ALLOW_PRIVATE_URLS=true npm start)`/.exec(readme);
    expect(variant, 'the README names the private-URL start').not.toBeNull();
    const open = await serve(variant![1]);
    const read = await fetch(`http://127.0.0.1:${port}/v1/web/scrape?url=${encodeURIComponent(`http://127.0.0.1:${sitePort}/`)}`, { headers: { 'x-api-key': key } });
    expect(read.status).toBe(200);
    expect(JSON.stringify(await read.json())).toContain('Gleaning in the fields');
    await stopped(open.child);
  });
});
