import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { TEST_OPERATIONS } from '../support/test-operations.js';
import { OPERATIONS } from '../../src/operations/table.js';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({ operations: TEST_OPERATIONS });
  key = await server.createKey('Enterprise');
});
afterAll(() => server.close());

function expectEnvelope(response: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.body.error.code).toBe(code);
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.requestId).toBe(response.headers.get('X-Request-Id'));
}

describe('the error envelope', () => {
  it('an unknown route is 404', async () => {
    expectEnvelope(await server.request('GET', '/v1/nothing-here', { apiKey: key }), 404, 'NOT_FOUND');
    expectEnvelope(await server.request('GET', '/', {}), 404, 'NOT_FOUND');
  });

  it('a wrong method is 405 with Allow', async () => {
    const response = await server.request('POST', '/v1/me', { apiKey: key, body: {} });
    expectEnvelope(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('Allow')).toBe('GET');
  });

  it('malformed JSON and a non-object body are 400', async () => {
    expectEnvelope(await server.request('POST', '/v1/test/post-echo', { apiKey: key, body: '{"items": [' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await server.request('POST', '/v1/test/post-echo', { apiKey: key, body: '[1,2]' }), 400, 'INVALID_REQUEST');
  });

  it('an oversized body is 413', async () => {
    const body = JSON.stringify({ items: ['https://example.com'], note: 'x'.repeat(2 * 1024 * 1024) });
    expectEnvelope(await server.request('POST', '/v1/test/post-echo', { apiKey: key, body }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a zod failure names the field and the bound', async () => {
    const response = await server.request('POST', '/v1/test/post-echo', { apiKey: key, body: { items: ['https://a.example', 'https://b.example', 'https://c.example', 'https://d.example'] } });
    expectEnvelope(response, 400, 'INVALID_REQUEST');
    expect(response.body.error.message).toMatch(/items/);
    expect(response.body.error.message).toMatch(/3/);
  });

  it('the key is checked before anything else', async () => {
    expectEnvelope(await server.request('POST', '/v1/test/post-echo', { body: { items: [] } }), 401, 'UNAUTHORIZED');
  });
});

describe('routes', () => {
  it('aliases serve the same operation as the canonical path', async () => {
    const body = { items: ['https://example.com/a'] };
    const canonical = await server.request('POST', '/v1/test/post-echo', { apiKey: key, body });
    const alias = await server.request('POST', '/v1/test-alias/post-echo', { apiKey: key, body });
    expect(canonical.status).toBe(200);
    expect(alias.body).toEqual(canonical.body);
  });
});

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and lists every operation of the table with its bounds', async () => {
    const response = await server.request('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const operationIds = Object.values(response.body.paths as Record<string, Record<string, { operationId: string }>>).flatMap((methods) =>
      Object.values(methods).map((m) => m.operationId),
    );
    for (const operation of OPERATIONS) expect(operationIds).toContain(operation.name);
    const post = response.body.paths['/v1/test/post-echo'].post;
    expect(post.requestBody.content['application/json'].schema.properties.items.maxItems).toBe(3);
  });
});
