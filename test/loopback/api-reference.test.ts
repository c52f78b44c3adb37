/**
 * GET /docs: the API reference page, rendered by Swagger UI (swagger-ui-dist, served by Gleaner itself)
 * from GET /v1/openapi.json, in Debian's Chromium. Every request the page makes stays on this server
 * (no CDN), the Content-Security-Policy refuses nothing the page needs (no violation logged), and the
 * page shows every operation and the error-code table. The screenshot is kept in test-artifacts/
 * (gitignored) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { REFERENCE_CSP } from '../../src/surfaces/reference.js';
import { startTestServer, type TestServer } from '../support/server.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test-artifacts');

describe('the API reference page at /docs', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves the page and its files from this server, with a strict Content-Security-Policy', async () => {
    const page = await fetch(`${server.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toBe(REFERENCE_CSP);
    expect(REFERENCE_CSP).toContain("script-src 'self'");
    expect(REFERENCE_CSP).not.toMatch(/script-src[^;]*unsafe/);
    const html = await page.text();
    // Every script, style and image of the page is a path on this server: nothing from elsewhere.
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(references.length).toBeGreaterThanOrEqual(4);
    for (const reference of references) expect(reference, reference).toMatch(/^\/(docs|v1)\//);
    expect(html).not.toMatch(/<script>(?!<\/script>)/);

    for (const file of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/init.js', '/docs/favicon-32x32.png']) {
      const reply = await fetch(`${server.baseUrl}${file}`);
      expect(reply.status, file).toBe(200);
      expect((await reply.arrayBuffer()).byteLength, file).toBeGreaterThan(100);
    }
    expect((await fetch(`${server.baseUrl}/docs`, { method: 'HEAD' })).status).toBe(200);
  });

  it('serves only its named files: other paths are a 404 in the error envelope, other methods a 405', async () => {
    for (const file of ['/docs/package.json', '/docs/swagger-ui.js.map', '/docs/..%2fpackage.json', '/docs/%2e%2e/%2e%2e/package.json', '/docs/index.html/x']) {
      const reply = await fetch(`${server.baseUrl}${file}`);
      expect(reply.status, file).toBe(404);
      expect(((await reply.json()) as { error: { code: string } }).error.code, file).toBe('NOT_FOUND');
    }
    const post = await fetch(`${server.baseUrl}/docs`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it.skipIf(!fs.existsSync(CHROMIUM))('renders every operation and the error-code table in Chromium, fetching nothing from elsewhere', { timeout: 180_000 }, async () => {
    const openapi = (await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(openapi.paths).flatMap(([route, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`));
    expect(operations.length).toBeGreaterThan(30);

    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
        timeout: 120_000,
      });
      const page = await browser.newPage({ viewport: { width: 1280, height: 2400 } });
      const requested: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${server.baseUrl}/docs`, { waitUntil: 'load', timeout: 120_000 });
      // Swagger UI draws one block per operation once it has read the document.
      await page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${operations.length}`, undefined, { timeout: 120_000 });

      const shown = await page.$$eval('.opblock', (blocks) =>
        blocks.map((block) => `${block.querySelector('.opblock-summary-method')?.textContent?.trim()} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
      );
      expect(shown.sort()).toEqual([...operations].sort());
      const text = (await page.evaluate('document.body.innerText')) as string;
      expect(text).toContain('Gleaner');
      expect(text).toContain('/v1/web/scrape');
      // The error-code table of the document's description, with what to do.
      for (const code of Object.keys(ERROR_CODES)) expect(text).toContain(code);
      expect(text).toContain(ERROR_CODES.RATE_LIMIT_EXCEEDED.fix);
      expect(await page.locator('table td', { hasText: 'RATE_LIMIT_EXCEEDED' }).count()).toBeGreaterThan(0);

      const origin = new URL(server.baseUrl).origin;
      expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
      expect(requested).toContain(`${origin}/v1/openapi.json`);
      expect(problems).toEqual([]);

      fs.mkdirSync(ARTIFACTS, { recursive: true });
      const shot = path.join(ARTIFACTS, 'api-reference.png');
      await page.screenshot({ path: shot });
      expect(fs.statSync(shot).size).toBeGreaterThan(20_000);
    } finally {
      await browser?.close();
    }
  });
});
