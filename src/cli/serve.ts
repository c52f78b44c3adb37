/** `gleaner serve`: the REST API and MCP over HTTP. */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { createApp } from '../app.js';
import { startHttpServer } from '../surfaces/http-server.js';
import { localOwnerId } from './local-owner.js';
import { untilSignal } from './signals.js';
import { installUpstreamSafetyNet } from './upstream-faults.js';

export async function runServe(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { host: { type: 'string' }, port: { type: 'string' }, 'no-worker': { type: 'boolean' } } });
  const host = values.host ?? config.GLEANER_HOST;
  const port = values.port !== undefined ? Number(values.port) : config.GLEANER_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port: "${values.port}" is not a port number\n`);
    return 2;
  }
  const app = await createApp(config, { jobWorker: !values['no-worker'] });
  // One upstream's fault fails its own call, never every user's (upstream-faults.ts).
  installUpstreamSafetyNet(app.log);
  const { accounts, store } = app.services;
  // The local owner (see local-owner.ts) has no key anyone holds: it does not count as one.
  const ownerId = await localOwnerId(store);
  if (!(await accounts.list()).some((account) => !account.revokedAt && account.id !== ownerId)) {
    const { account, apiKey } = await accounts.create({ plan: 'Enterprise', name: 'owner', role: 'owner' });
    process.stdout.write(
      `No API keys existed, so an owner key (Enterprise plan, id ${account.id}) was created. It is shown this once:\n\n  ${apiKey}\n\nSend it in the x-api-key header. Manage keys with "gleaner keys" or sign in with it to the web console at /console.\n\n`,
    );
  }
  const server = await startHttpServer(app, { host, port });
  app.log.info({ url: server.url, store: store.location }, `Gleaner listening: REST ${server.url}/v1, MCP ${server.url}/mcp`);
  await untilSignal();
  await server.close();
  await app.close();
  return 0;
}
