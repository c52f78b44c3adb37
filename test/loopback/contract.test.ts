/**
 * The typed contract: the served OpenAPI document validates, declares a typed success body and
 * the 4xx replies of every operation, and a client generated from it compiles in strict mode.
 * (Every reply the other tests provoke is checked against the document by test/support/contract.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import { startTestServer, type TestServer } from '../support/server.js';
import { OPERATIONS } from '../../src/operations/table.js';

let server: TestServer;
let document: any;
beforeAll(async () => {
  server = await startTestServer();
  const response = await fetch(`${server.baseUrl}/v1/openapi.json`);
  document = await response.json();
});
afterAll(() => server.close());

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 and names this server', async () => {
    await SwaggerParser.validate(structuredClone(document));
    expect(document.servers).toEqual([{ url: server.baseUrl, description: 'This server' }]);
  });

  it('declares for every route a typed success body, the rate and credit headers, and its 4xx replies in the envelope', () => {
    const ids = new Set<string>();
    for (const [route, methods] of Object.entries<any>(document.paths)) {
      for (const [method, entry] of Object.entries<any>(methods)) {
        expect(ids.has(entry.operationId), `${method} ${route}: operationId ${entry.operationId} repeated`).toBe(false);
        ids.add(entry.operationId);
        const [status, success] = Object.entries<any>(entry.responses).find(([code]) => code.startsWith('2'))!;
        if (success.content['image/png']) {
          // A route whose reply is bytes (HttpBinding.binary: a screenshot's PNG) declares their type.
          expect(success.content['image/png'].schema, `${method} ${route} success body`).toEqual({ type: 'string', contentMediaType: 'image/png' });
        } else {
          const ref: string = success.content['application/json'].schema.$ref;
          const body = document.components.schemas[ref.split('/').pop()!];
          expect(body.type, `${method} ${route} success body`).toBe('object');
          expect(Object.keys(body.properties ?? {}).length, `${method} ${route} success body`).toBeGreaterThan(0);
        }
        expect(Object.keys(success.headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Credits-Used', 'X-Credits-Remaining']));
        const errors = Object.keys(entry.responses).filter((code) => code.startsWith('4'));
        expect(errors, `${method} ${route} (${status})`).toEqual(expect.arrayContaining(['400', '401', '429']));
        for (const code of errors) expect(entry.responses[code].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
        expect(entry.tags.length).toBe(1);
      }
    }
    // Every operation is there once under its own name; aliases say whose they are.
    for (const operation of OPERATIONS) expect(ids.has(operation.name), operation.name).toBe(true);
    const alias = document.paths['/v1/vidsite/transcript'].get;
    expect(alias['x-alias-of']).toBe('youtube_transcript');
    expect(document.paths['/v1/web/crawl'].post.responses['202'].headers['X-Credits-Reserved']).toBeDefined();
    expect(document.paths['/v1/web/crawl'].post.responses['402']).toBeDefined();
  });

  it('generates a client (openapi-typescript + openapi-fetch) that compiles in strict mode against code reading the replies', async () => {
    // Inside node_modules so the compiled file resolves openapi-fetch like any client project.
    const dir = path.resolve('node_modules/.cache/gleaner-contract-client');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'schema.ts'), astToString(await openapiTS(structuredClone(document))));
    fs.copyFileSync(path.resolve('test/contract/client.ts.txt'), path.join(dir, 'client.ts'));
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], skipLibCheck: true }, files: ['client.ts'] }),
    );
    const tsc = path.resolve('node_modules/typescript/bin/tsc');
    const run = await promisify(execFile)(process.execPath, [tsc, '-p', dir]).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(run.stdout).toBe('');
    // And a client that reads a field the document does not declare does not compile.
    fs.writeFileSync(path.join(dir, 'client.ts'), `${fs.readFileSync(path.join(dir, 'client.ts'), 'utf8')}\nexport async function wrong() { const me = await createClient<paths>({}).GET('/v1/me'); return me.data?.notAField; }\n`);
    const broken = await promisify(execFile)(process.execPath, [tsc, '-p', dir]).then(() => ({ stdout: '' }), (error: { stdout: string }) => error);
    expect(broken.stdout).toContain('notAField');
  }, 120_000);
});

describe('the account reply', () => {
  it('gives an Enterprise key an integer credits and says it is unlimited', async () => {
    const key = await server.createKey('Enterprise');
    const me = await server.request('GET', '/v1/me', { apiKey: key });
    expect(me.status).toBe(200);
    expect(Number.isInteger(me.body.credits)).toBe(true);
    expect(me.body).toMatchObject({ plan: 'Enterprise', unlimited: true, monthlyCredits: null });
  });
});
