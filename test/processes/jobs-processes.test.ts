/**
 * Job ownership across real processes on one SQLite file: a `gleaner mcp` (stdio) started beside a
 * `gleaner serve` leaves the server's running crawl alone, and the crawl completes charged.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { callApi as api, createKeyWithCli as createKey, jobEnd, startGleaner, type GleanerProcess } from '../support/processes.js';
import { startGatedSite, type GatedSite } from '../support/gated-site.js';
import { GLEANER_MAIN } from '../support/built-cli.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('jobs held by a lease (SQLite, real processes)', () => {
  it('a crawl running on serve stays processing while mcp starts and takes over dead jobs, then completes charged', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-lease-'));
    // A short lease, so the mcp process's recovery sweep runs again while the crawl is held.
    const env = { GLEANER_DATA_DIR: dataDir, GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_JOB_LEASE_SECONDS: '3', GLEANER_HTTP_TIMEOUT_MS: '600000' };
    // (Held pages wait as long as process start-ups take on a busy machine, beyond the default request timeout.)
    const key = await createKey(env, 'Pro', 100);
    const site: GatedSite = await startGatedSite(10);
    cleanup.push(() => site.close());
    const serve: GleanerProcess = await startGleaner(['serve', '--port', '0'], env);
    cleanup.push(() => serve.stop());

    const started = await api(serve.url!, key, 'POST', '/v1/web/crawl', { url: `${site.origin}/`, maxPages: 5 });
    expect(started.status).toBe(202);
    const { jobId } = started.body;
    await site.requestedAtLeast(1);

    const client = new Client({ name: 'lease-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [GLEANER_MAIN, 'mcp'],
      env: { ...(process.env as Record<string, string>), ...env, GLEANER_API_KEY: key },
      stderr: 'pipe',
    });
    await client.connect(transport);
    cleanup.push(() => client.close());

    // The mcp process ran its start-up recovery before answering initialize; let its periodic sweep
    // run at least once more (every lease period, 3 s; a lease this short survives a busy machine): the claim under test is that time passing changes nothing.
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      const seen = await client.callTool({ name: 'job_status', arguments: { jobId } });
      expect((seen.structuredContent ?? JSON.parse((seen.content as Array<{ text: string }>)[0].text)) as { status: string }).toMatchObject({ status: 'processing' });
      await new Promise((resolve) => setTimeout(resolve, 300));
    }

    site.releaseAll();
    const job = await jobEnd(serve.url!, key, jobId);
    expect(job.status).toBe('completed');
    expect(job.error).toBeNull();
    expect(job.result.pages).toHaveLength(5);
    expect((await api(serve.url!, key, 'GET', '/v1/me')).body.credits).toBe(95);
  }, 240_000);
});
