/**
 * The Dockerfile and compose.yaml, built and started where a Docker engine answers: Redis, two
 * `gleaner serve` and two `gleaner worker` come up, both serves answer /healthz (their store, Redis,
 * included), and a key made through one serve is known to the other (one shared store).
 *
 * Where `docker info` fails (CI has no engine) or `docker compose` is missing, the test is skipped and
 * says why; test/unit/operator-files.test.ts still checks the files themselves. Without Docker Hub:
 * scripts/docker-local-images.sh and scripts/docker-compose-plugin.sh, then GLEANER_NODE_IMAGE and
 * GLEANER_REDIS_IMAGE name the local images (docs/docker.md, "Proven under a real engine").
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/processes.js';

function dockerMissing(): string | undefined {
  const info = spawnSync('docker', ['info'], { encoding: 'utf8', timeout: 60_000 });
  if (info.error || info.status !== 0) return `docker info failed (${(info.error?.message ?? info.stderr ?? '').trim().split('\n').at(-1)}): no Docker engine here`;
  const compose = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8', timeout: 60_000 });
  if (compose.status !== 0) return 'docker compose is not installed (scripts/docker-compose-plugin.sh adds it on Debian 12)';
  return undefined;
}

const missing = dockerMissing();
if (missing) console.log(`docker.test.ts skipped: ${missing}; the files are checked by test/unit/operator-files.test.ts`);

const PROJECT = `gleaner-test-${process.pid}`;

describe.skipIf(missing !== undefined)('compose.yaml under Docker', () => {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  const compose = (...args: string[]) => {
    try {
      return execFileSync('docker', ['compose', '-p', PROJECT, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 1_500_000, maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      // The failing step's own output (a build step's log, a container's complaint), not only compose's last line.
      const stderr = String((error as { stderr?: string }).stderr ?? '');
      throw new Error(`docker compose ${args.join(' ')} failed:\n${stderr.slice(-6000)}`);
    }
  };

  afterAll(() => {
    if (!missing) spawnSync('docker', ['compose', '-p', PROJECT, 'down', '-v', '--remove-orphans'], { env, timeout: 300_000 });
  });

  it('builds the image, starts every service and answers /healthz on both serves', { timeout: 1_800_000 }, async () => {
    env.GLEANER_SERVE_1_PORT = String(await freePort());
    env.GLEANER_SERVE_2_PORT = String(await freePort());
    compose('--progress', 'plain', 'build');
    // --wait: until Redis and both serves are healthy. The workers are named apart and started after: compose's
    // --wait fails on a service whose health check is disabled ("has no healthcheck configured", docker/compose#13522).
    compose('up', '-d', '--wait', '--wait-timeout', '600', 'redis', 'serve-1', 'serve-2');
    compose('up', '-d', 'worker-1', 'worker-2');
    const running = compose('ps', '--status', 'running', '--services').trim().split('\n').sort();
    expect(running).toEqual(['redis', 'serve-1', 'serve-2', 'worker-1', 'worker-2']);
    for (const port of [env.GLEANER_SERVE_1_PORT, env.GLEANER_SERVE_2_PORT]) {
      const reply = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(reply.status).toBe(200);
      expect(((await reply.json()) as { store: { status: string } }).store.status).toBe('ok');
    }
    // One store: a key made in serve-1's container answers on serve-2. (The image runs as its own user, not root.)
    expect(compose('exec', '-T', 'serve-1', 'id', '-u').trim()).not.toBe('0');
    const key = compose('exec', '-T', 'serve-1', 'node', '/app/dist/cli/main.js', 'keys', 'create', '--plan', 'Pro').trim();
    const me = await fetch(`http://127.0.0.1:${env.GLEANER_SERVE_2_PORT}/v1/me`, { headers: { 'x-api-key': key } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { plan: string }).plan).toBe('Pro');
    // The reference page's assets are in the image.
    expect((await fetch(`http://127.0.0.1:${env.GLEANER_SERVE_1_PORT}/docs`)).status).toBe(200);
  });
});
