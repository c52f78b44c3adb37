#!/usr/bin/env node
/**
 * The `gleaner` command. One table of commands; each command's module is imported only when it
 * runs, so `gleaner keys list` or `--version` never load the platform adapters or the servers.
 * Results a script may capture (and --help, --version) go to stdout; everything else goes to stderr.
 */
import fs from 'node:fs';
import type { Config } from '../config.js';
import { redactText, rememberConfiguredSecrets, rememberSecrets } from '../redact.js';

type Run = (config: Config, args: string[]) => Promise<number>;

interface Command {
  /** One line for `gleaner --help`. */
  summary: string;
  /** The command's own help, printed by `gleaner <command> --help`. */
  usage: string;
  load: () => Promise<Run>;
}

const PLANS_LINE = 'Plans: Free, Basic, Pro, Mega, Giga, Apex, Enterprise.';

/** Adding a command is one entry here and one module exporting its run function. */
const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'REST API under /v1 and MCP at /mcp over HTTP',
    usage: `gleaner serve [--host 127.0.0.1] [--port 8080] [--no-worker]
  Serves the REST API under /v1 and MCP (streamable HTTP) at /mcp. With no key in the store, creates an
  owner key (Enterprise plan) and prints it once. Host and port default to GLEANER_HOST and GLEANER_PORT.
   --no-worker: enqueue jobs but leave their work to "gleaner worker" processes (Redis store).`,
    load: async () => (await import('./serve.js')).runServe,
  },
  mcp: {
    summary: 'MCP server over stdio (for Claude Desktop and other local clients)',
    usage: `gleaner mcp
  MCP over stdio. Tool calls act as the key in GLEANER_API_KEY; without one they act as the local owner
  of the store in GLEANER_DATA_DIR (an Enterprise account named "local-owner", made on first use).`,
    load: async () => (await import('./mcp.js')).runMcp,
  },
  keys: {
    summary: 'create, list, revoke and re-plan API keys',
    usage: `gleaner keys create --plan <plan> [--name <label>] [--credits <monthly allowance>] [--owner]
gleaner keys list
gleaner keys revoke <id>
gleaner keys set-plan <id> <plan>
  ${PLANS_LINE} "create" prints the key alone on stdout, once. --owner: the key also manages keys
  and plans in the web console (/console).`,
    load: async () => (await import('./keys.js')).runKeysCommand,
  },
  doctor: {
    summary: 'live check of every platform and the local parts from this machine',
    usage: `gleaner doctor [--json] [URL ...]
  Probes one known public item per platform (or the URLs given) through Gleaner's own handlers, metadata
  then captions, without keys or credits, and the local parts: store, ffmpeg, ffprobe, speech-to-text and
  language-model endpoints, and the platform profile's date (a warning when the built-in one is over 90 days
  old). Each check is ok, warn, blocked, changed, failed or skipped; exits 0 only when none is blocked,
  changed or failed. --json prints { "ok", "profile": { "date", "builtinDate", "builtinAgeDays", "file" },
  "checks": [{ "name", "platform", "status", "detail" }] }.`,
    load: async () => (await import('./doctor.js')).runDoctor,
  },
  profile: {
    summary: 'the platform profile in force (client versions, browser identities, ids)',
    usage: `gleaner profile [--json]
  Prints the platform profile in force: the built-in one with GLEANER_PLATFORM_PROFILE and the shorthand
  variables (GLEANER_YOUTUBE_CLIENTS, GLEANER_X_TWEET_QUERY_ID, GLEANER_INSTAGRAM_DOC_ID) merged over it, each
  entry with the date and public source it was last checked against. --json prints the whole profile, which,
  saved and edited, is a valid GLEANER_PLATFORM_PROFILE file (docs/platform-profile.md).`,
    load: async () => (await import('./profile.js')).runProfile,
  },
  worker: {
    summary: 'works queued jobs only (needs GLEANER_STORE_URL=redis://...)',
    usage: `gleaner worker
   Works jobs from the shared queue (BullMQ on the Redis of GLEANER_STORE_URL), GLEANER_JOB_CONCURRENCY at
   once, without serving anything. Start as many as the work needs; on the embedded SQLite store jobs run in
   the serve or mcp process that accepted them.`,
    load: async () => {
      const [{ runWorkerCommand }, { untilSignal }] = await Promise.all([import('./worker.js'), import('./signals.js')]);
      return (config, args) => runWorkerCommand(config, args, untilSignal);
    },
  },
  docs: {
    summary: "regenerate (or --check) README's operation table, manifest.json's tools and docs/errors.md",
    usage: `gleaner docs [--check]
  Writes the README operation table and manifest.json's tools from the table of operations, and
  docs/errors.md from the error codes (src/errors.ts); --check only says whether they are stale (exit 1).`,
    load: async () => {
      const { runDocsCommand } = await import('./docs.js');
      return (_config, args) => runDocsCommand(args);
    },
  },
};

function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return `Usage: gleaner <command> [options]   (gleaner <command> --help for its options)

Commands:
${lines.join('\n')}

  gleaner --version   prints the version
${PLANS_LINE} Configuration: environment variables (see docs/configuration.md).`;
}

function version(): string {
  // package.json sits two levels above both src/cli and dist/cli.
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const wantsHelp = (args: string[]) => args.includes('--help') || args.includes('-h');

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (name === undefined) {
    process.stderr.write(`${overview()}\n`);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
    process.stdout.write(`${topic ? `Usage: ${topic.usage}` : overview()}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`Unknown command "${name}".\n${overview()}\n`);
    return 2;
  }
  if (wantsHelp(rest)) {
    process.stdout.write(`Usage: ${command.usage}\n`);
    return 0;
  }
  const { ConfigError, loadConfig } = await import('../config.js');
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${redactText(error.message)}\n`);
      return 2;
    }
    throw error;
  }
  // From here on, no log line or message of this process shows a configured credential.
  rememberConfiguredSecrets(config);
  // And those the operator put in the platform profile (an X bearer token of their own, login headers).
  const { profileSecrets } = await import('../profile/load.js');
  rememberSecrets(profileSecrets(config.platformProfile));
  const run = await command.load();
  const { UsageError } = await import('./usage.js');
  try {
    return await run(config, rest);
  } catch (error) {
    // One rule for every command: a usage mistake exits 2 with the way to its help (usage.ts).
    if (error instanceof UsageError) {
      process.stderr.write(`gleaner ${name}: ${redactText(error.message)}\nUsage: ${command.usage.split('\n')[0]}   (gleaner ${name} --help for more)\n`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${redactText(error instanceof Error ? error.message : String(error))}\n`);
    process.exit(1);
  },
);
