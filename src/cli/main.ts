#!/usr/bin/env node
/**
 * The `gleaner` command: serve (REST + MCP over HTTP), mcp (MCP over stdio) and keys.
 * Results a script may capture go to stdout; everything else goes to stderr.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createApp } from '../app.js';
import { startHttpServer } from '../surfaces/http-server.js';
import { serveStdio } from '../surfaces/mcp/sdk.js';
import { createToolSet } from '../surfaces/mcp/toolset.js';
import { SERVER_IDENTITY } from '../surfaces/identity.js';
import { runKeysCommand } from './keys.js';
import { runDocsCommand } from './docs.js';

const USAGE = `Usage:
  gleaner serve [--host 127.0.0.1] [--port 8080] [--no-worker]   REST API under /v1 and MCP at /mcp
  gleaner mcp                                      MCP server over stdio (key from GLEANER_API_KEY)
  gleaner worker                                   works queued jobs only (needs GLEANER_STORE_URL=redis://...)
  gleaner keys create --plan <plan> [--name <label>] [--credits <monthly allowance>]
  gleaner keys list
  gleaner keys revoke <id>
  gleaner keys set-plan <id> <plan>
  gleaner docs [--check]                           regenerate (or check) README's operation table and manifest.json's tools
Plans: Free, Basic, Pro, Mega, Giga, Apex, Enterprise. Configuration: environment variables (see README).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === 'help') {
    process.stderr.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  switch (command) {
    case 'serve':
      return serve(config, rest);
    case 'mcp':
      return mcpStdio(config);
    case 'worker':
      return (await import('./worker.js')).runWorkerCommand(config, rest, untilSignal);
    case 'keys':
      return runKeysCommand(config, rest);
    case 'docs':
      return runDocsCommand(rest);
    default:
      process.stderr.write(`Unknown command "${command}".\n${USAGE}\n`);
      return 2;
  }
}

async function serve(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { host: { type: 'string' }, port: { type: 'string' }, 'no-worker': { type: 'boolean' } } });
  const host = values.host ?? config.GLEANER_HOST;
  const port = values.port !== undefined ? Number(values.port) : config.GLEANER_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port: "${values.port}" is not a port number\n`);
    return 2;
  }
  const app = await createApp(config, { jobWorker: !values['no-worker'] });
  if (!(await app.services.accounts.hasActiveKeys())) {
    const { account, apiKey } = await app.services.accounts.create({ plan: 'Enterprise', name: 'owner' });
    process.stdout.write(
      `No API keys existed, so an owner key (Enterprise plan, id ${account.id}) was created. It is shown this once:\n\n  ${apiKey}\n\nSend it in the x-api-key header. Manage keys with "gleaner keys".\n\n`,
    );
  }
  const server = await startHttpServer(app, { host, port });
  app.log.info({ url: server.url, store: app.services.store.location }, `Gleaner listening: REST ${server.url}/v1, MCP ${server.url}/mcp`);
  await untilSignal();
  await server.close();
  await app.close();
  return 0;
}

async function mcpStdio(config: Config): Promise<number> {
  const app = await createApp(config);
  if (!config.GLEANER_API_KEY) {
    app.log.warn('GLEANER_API_KEY is not set: tools are listed, but every tool call answers UNAUTHORIZED until a key is configured.');
  }
  const close = await serveStdio(SERVER_IDENTITY, createToolSet(app), config.GLEANER_API_KEY);
  await Promise.race([untilSignal(), new Promise<void>((resolve) => process.stdin.once('close', () => resolve()))]);
  await close();
  await app.close();
  return 0;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
