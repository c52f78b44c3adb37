/** `gleaner mcp`: the MCP server over stdio (stdout carries the protocol; logs go to stderr). */
import type { Config } from '../config.js';
import { createApp } from '../app.js';
import { serveStdio } from '../surfaces/mcp/sdk.js';
import { createToolSet } from '../surfaces/mcp/toolset.js';
import { SERVER_IDENTITY } from '../surfaces/identity.js';
import { localOwner, ownerAccount } from './local-owner.js';
import { untilSignal } from './signals.js';
import { parseOptions } from './usage.js';
import { installUpstreamSafetyNet } from './upstream-faults.js';

export async function runMcp(config: Config, args: string[] = []): Promise<number> {
  // It takes no options: a typo is refused before anything starts (usage.ts).
  parseOptions(args, {});
  const app = await createApp(config);
  installUpstreamSafetyNet(app.log);
  const tools = createToolSet(app);
  const key = config.GLEANER_API_KEY;
  // Each tool call checks the key once (it may be revoked or change plan while the server runs).
  let account = () => app.services.accounts.authenticate(key);
  if (!key) {
    // No key configured: this process belongs to whoever runs it, so it acts as the store's local owner.
    const owner = await localOwner(app.services.store, app.services.accounts);
    account = () => ownerAccount(app.services.accounts, owner.id);
    app.log.info({ account: owner.id, store: app.services.store.location }, 'GLEANER_API_KEY is not set: tool calls act as the local owner of this store.');
  } else {
    app.log.info({ store: app.services.store.location }, 'MCP over stdio: tool calls act as the key in GLEANER_API_KEY.');
  }
  const close = await serveStdio(SERVER_IDENTITY, tools, account, app.services.store, (error) => app.log.debug({ err: error }, 'MCP protocol error'));
  await Promise.race([untilSignal(), new Promise<void>((resolve) => process.stdin.once('close', () => resolve()))]);
  await close();
  await app.close();
  return 0;
}
