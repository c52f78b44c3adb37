/**
 * The MCP wait for a job ends at GLEANER_MCP_WAIT_SECONDS whatever the garbage collector does
 * (issue 39): an MCP SDK 1.x client with a progress handler, as assistants run it, calling
 * `web_crawl` on a site that holds its pages gets the job handle while the crawl is still running.
 * On Node 20, with the wait's timer built as `AbortSignal.any([AbortSignal.timeout(ms), …])`, a
 * collection during the wait left the call hanging until the crawl ended; here the site never lets
 * the crawl end, so a wait that misses its deadline turns into this test's timeout.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp } from '../support/mcp.js';
import { startGatedSite, type GatedSite } from '../support/gated-site.js';
import { modernDispatch } from '../support/mcp-v2.js';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

let server: TestServer | undefined;
let site: GatedSite | undefined;
afterEach(async () => {
  site?.releaseAll();
  await site?.close();
  await server?.close();
  site = server = undefined;
});

describe('an MCP client with a progress handler, while collections run', () => {
  it('gets the job handle of a crawl that is still running once GLEANER_MCP_WAIT_SECONDS pass', { timeout: 120_000 }, async () => {
    server = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_MCP_WAIT_SECONDS: '1' } });
    site = await startGatedSite(300);
    // A few pages answer (so progress flows); the rest are held until the test ends.
    site.release(3);
    const client = await connectMcp(server.baseUrl, await server.createKey('Pro', { credits: 1_000 }));
    // The server runs in this process: its waits see these collections.
    const collector = setInterval(collect, 20);
    try {
      const progress: number[] = [];
      const result = await client.callTool({ name: 'web_crawl', arguments: { url: site.origin, maxPages: 300 } }, undefined, {
        onprogress: (p) => void progress.push(p.progress),
        // The 60 s many clients give a call before they cancel it.
        timeout: 60_000,
      });
      clearInterval(collector);
      expect(result.isError).toBeFalsy();
      const handle = result.structuredContent as { jobId: string; status: string };
      expect(handle.jobId).toEqual(expect.any(String));
      expect(['queued', 'processing']).toContain(handle.status);
      // The crawl is still running: the handle came from the wait's deadline, not from the crawl's end.
      const job = await server.app.services.jobs.record(handle.jobId);
      expect(['queued', 'processing']).toContain(job?.status);
      expect(site.requested.length).toBeLessThan(300);
    } finally {
      clearInterval(collector);
      await client.close();
    }
  });

  it('as a raw client without one does', { timeout: 120_000 }, async () => {
    server = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_MCP_WAIT_SECONDS: '1' } });
    site = await startGatedSite(300);
    const call = modernDispatch(server.baseUrl, await server.createKey('Pro', { credits: 1_000 }), {});
    const collector = setInterval(collect, 20);
    try {
      const reply = await call({ method: 'tools/call', params: { name: 'web_crawl', arguments: { url: site.origin, maxPages: 300 } } });
      clearInterval(collector);
      expect(reply.result?.isError).toBeFalsy();
      const handle = reply.result.structuredContent as { jobId: string; status: string };
      expect(['queued', 'processing']).toContain(handle.status);
      const job = await server.app.services.jobs.record(handle.jobId);
      expect(['queued', 'processing']).toContain(job?.status);
    } finally {
      clearInterval(collector);
    }
  });
});
