/** `gleaner serve`: the REST API and MCP over HTTP. */
import type { Config } from '../config.js';
import { createApp } from '../app.js';
import { startHttpServer } from '../surfaces/http-server.js';
import { localOwnerId } from './local-owner.js';
import { untilSignal } from './signals.js';
import { installUpstreamSafetyNet } from './upstream-faults.js';
import { parseOptions, UsageError } from './usage.js';

/** Why the server could not listen, said plainly with the settings that choose where (undefined for other errors). */
function listenProblem(error: unknown, host: string, port: number): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const choose = 'Choose another port with --port <n> (gleaner serve --port 8081) or GLEANER_PORT, or another address with --host or GLEANER_HOST.';
  if (code === 'EADDRINUSE') return `Cannot listen on ${where}: the port is already in use (EADDRINUSE), perhaps by another gleaner serve. ${choose}`;
  if (code === 'EACCES') return `Cannot listen on ${where}: permission denied (EACCES; ports below 1024 need privileges). ${choose}`;
  if (code === 'EADDRNOTAVAIL') return `Cannot listen on ${where}: no such address on this machine (EADDRNOTAVAIL). ${choose}`;
  return undefined;
}

export async function runServe(config: Config, args: string[]): Promise<number> {
  const { values } = parseOptions(args, { host: { type: 'string' }, port: { type: 'string' }, 'no-worker': { type: 'boolean' } });
  const host = values.host ?? config.GLEANER_HOST;
  const port = values.port !== undefined ? Number(values.port) : config.GLEANER_PORT;
  if (values.port !== undefined && (!/^\d+$/.test(values.port) || port > 65535)) throw new UsageError(`--port: "${values.port}" is not a port number (0 to 65535).`);
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
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    server = await startHttpServer(app, { host, port });
  } catch (error) {
    const problem = listenProblem(error, host, port);
    if (!problem) throw error;
    // A failure, not a usage mistake: exit 1 with what to do, no stack trace.
    await app.close();
    process.stderr.write(`${problem}\n`);
    return 1;
  }
  app.log.info({ url: server.url, store: store.location }, `Gleaner listening: REST ${server.url}/v1, MCP ${server.url}/mcp`);
  await untilSignal();
  await server.close();
  await app.close();
  return 0;
}
