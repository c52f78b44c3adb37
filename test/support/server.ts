/** A real Gleaner server on loopback with its own SQLite store in a temporary folder. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import { startHttpServer, type ServerTimeouts } from '../../src/surfaces/http-server.js';
import type { PlanName } from '../../src/accounts/plans.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { replyChecker } from './contract.js';

export interface TestServer {
  baseUrl: string;
  app: App;
  dataDir: string;
  createKey(plan: PlanName, options?: { credits?: number }): Promise<string>;
  /** GET or POST under the base URL with a key; returns status, headers and parsed body. */
  request(method: 'GET' | 'POST' | 'DELETE', pathAndQuery: string, options?: { apiKey?: string; body?: unknown; headers?: Record<string, string> }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestServerOptions extends Pick<AppOptions, 'clock' | 'operations' | 'resolver'> {
  env?: Record<string, string>;
  /** Reuse a data folder (to test restarts). */
  dataDir?: string;
  /** Slow-client limits of the HTTP server (tests shorten the body deadline). */
  timeouts?: Partial<ServerTimeouts>;
  /** A logger of the test's own (to read the access log); silent otherwise. */
  logger?: AppOptions['logger'];
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-test-'));
  const config = loadConfig({ GLEANER_DATA_DIR: dataDir, GLEANER_LOG_LEVEL: 'silent', ...options.env });
  const app = await createApp(config, { logger: options.logger ?? (process.env.GLEANER_TEST_LOG ? createLogger(process.env.GLEANER_TEST_LOG) : silentLogger), clock: options.clock, operations: options.operations, resolver: options.resolver });
  const server = await startHttpServer(app, { host: '127.0.0.1', port: 0, timeouts: options.timeouts });
  const baseUrl = server.url;
  const replies = replyChecker(app.operations);
  return {
    baseUrl,
    app,
    dataDir,
    async createKey(plan, keyOptions = {}) {
      const { apiKey } = await app.services.accounts.create({ plan, monthlyCredits: keyOptions.credits });
      return apiKey;
    },
    async request(method, pathAndQuery, requestOptions = {}) {
      const response = await fetch(`${baseUrl}${pathAndQuery}`, {
        method,
        headers: {
          ...(requestOptions.apiKey ? { 'x-api-key': requestOptions.apiKey } : {}),
          ...(requestOptions.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...requestOptions.headers,
        },
        body: requestOptions.body === undefined ? undefined : typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      replies.check(method, pathAndQuery, response.status, body);
      return { status: response.status, headers: response.headers, body };
    },
    async close() {
      await server.close();
      await app.close();
    },
  };
}
