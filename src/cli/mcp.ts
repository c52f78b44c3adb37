/** `gleaner mcp`: the MCP server over stdio (stdout carries the protocol; logs go to stderr). */
import type { Config } from '../config.js';
import { createApp } from '../app.js';
import { serveStdio } from '../surfaces/mcp/sdk.js';
import { createToolSet, type ToolSet } from '../surfaces/mcp/toolset.js';
import { SERVER_IDENTITY } from '../surfaces/identity.js';
import { localOwner } from './local-owner.js';
import { untilSignal } from './signals.js';
import { installUpstreamSafetyNet } from './upstream-faults.js';

export async function runMcp(config: Config): Promise<number> {
  const app = await createApp(config);
  installUpstreamSafetyNet(app.log);
  let tools: ToolSet = createToolSet(app);
  if (!config.GLEANER_API_KEY) {
    // No key configured: this process belongs to whoever runs it, so it acts as the store's local owner.
    const owner = await localOwner(app.services.store, app.services.accounts);
    const keyed = tools;
    tools = { ...keyed, call: (name, args, context) => keyed.call(name, args, { ...context, actAs: owner.id }) };
    app.log.info({ account: owner.id, store: app.services.store.location }, 'GLEANER_API_KEY is not set: tool calls act as the local owner of this store.');
  } else {
    app.log.info({ store: app.services.store.location }, 'MCP over stdio: tool calls act as the key in GLEANER_API_KEY.');
  }
  const close = await serveStdio(SERVER_IDENTITY, tools, config.GLEANER_API_KEY);
  await Promise.race([untilSignal(), new Promise<void>((resolve) => process.stdin.once('close', () => resolve()))]);
  await close();
  await app.close();
  return 0;
}
