/**
 * compose.yaml's services started the way their containers start them, without a Docker engine (these
 * machines and CI have none; test/processes/docker.test.ts runs the real thing where one answers): each
 * Gleaner service's `command` after the Dockerfile's ENTRYPOINT, with the Dockerfile's ENV and the service's
 * `environment` (Redis at its compose address rewritten to a local redis-server), its own data folder as its
 * volume, in compose's order (serve-2 once serve-1 is healthy). Health is judged by the Dockerfile's own
 * HEALTHCHECK command. What this proves: the commands, flags and settings in the two files start, share one
 * store and pass their health check; what it cannot: the image build and Docker's networking.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort, hasRedis, startGleaner, startRedis, type GleanerProcess } from '../support/processes.js';

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(fs.readFileSync('compose.yaml', 'utf8'), { merge: true }) as { services: Record<string, Service> };
const dockerfile = fs.readFileSync('Dockerfile', 'utf8').replace(/\\\n\s*/g, ' ');

/** The final stage's ENV pairs (`ENV A=1 B=2`). */
function imageEnvironment(): Record<string, string> {
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const line of finalStage.split('\n').filter((text) => text.startsWith('ENV '))) {
    for (const [, name, value] of line.slice(4).matchAll(/([A-Z_]+)=(\S+)/g)) env[name!] = value!;
  }
  return env;
}

/** The HEALTHCHECK's exec form, e.g. ["node", "-e", "fetch(...)"]. */
const healthcheck = JSON.parse(/HEALTHCHECK .*?CMD (\[.*\])\s*$/m.exec(dockerfile)![1]!) as string[];
const healthy = (env: Record<string, string>) =>
  spawnSync(healthcheck[0] === 'node' ? process.execPath : healthcheck[0]!, healthcheck.slice(1), { env: { ...process.env, ...env }, timeout: 60_000 }).status === 0;

describe.skipIf(!hasRedis())('compose.yaml services as processes (no Docker engine)', () => {
  const started: GleanerProcess[] = [];
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
  const folders: string[] = [];

  afterAll(async () => {
    for (const gleaner of started.reverse()) await gleaner.stop();
    await redis?.stop();
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('starts every service, both serves pass the image health check, and they share one store', { timeout: 600_000 }, async () => {
    redis = await startRedis();
    const image = imageEnvironment();
    expect(Object.keys(compose.services).sort()).toEqual(['redis', 'serve-1', 'serve-2', 'worker-1', 'worker-2']);
    const envOf = async (name: string, service: Service) => {
      const data = fs.mkdtempSync(path.join(os.tmpdir(), `gleaner-compose-${name}-`));
      folders.push(data);
      const env: Record<string, string> = { ...image, ...service.environment };
      env.GLEANER_STORE_URL = env.GLEANER_STORE_URL!.replace('redis://redis:6379', redis!.url);
      // A container's 0.0.0.0 and /data, here a loopback port and a folder of its own.
      return { ...env, GLEANER_HOST: '127.0.0.1', GLEANER_PORT: String(await freePort()), GLEANER_DATA_DIR: data, GLEANER_LOG_LEVEL: 'info' };
    };

    const serve1 = compose.services['serve-1']!;
    expect(serve1.command).toEqual(['serve']);
    const env1 = await envOf('serve-1', serve1);
    const first = await startGleaner(serve1.command!, env1);
    started.push(first);
    expect(healthy(env1)).toBe(true);

    // serve-2 waits for serve-1's health (one owner key is made, by serve-1), then takes requests only.
    const serve2 = compose.services['serve-2']!;
    expect(serve2.depends_on?.['serve-1']?.condition).toBe('service_healthy');
    const env2 = await envOf('serve-2', serve2);
    const second = await startGleaner(serve2.command!, env2);
    started.push(second);
    expect(healthy(env2)).toBe(true);

    for (const name of ['worker-1', 'worker-2']) {
      const service = compose.services[name]!;
      expect(service.healthcheck?.disable).toBe(true);
      started.push(await startGleaner(service.command!, await envOf(name, service)));
    }

    // One store: the owner key serve-1 printed answers on serve-2; serve-2 printed none of its own.
    const health = (await (await fetch(`${second.url}/healthz`)).json()) as { store: { status: string } };
    expect(health.store.status).toBe('ok');
    const key = /gl_[A-Za-z0-9_-]{32}/.exec(first.output())?.[0];
    expect(key, `serve-1 printed no owner key: ${first.output()}`).toBeDefined();
    const me = await fetch(`${second.url}/v1/me`, { headers: { 'x-api-key': key! } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { plan: string }).plan).toBe('Enterprise');
    expect(second.output()).not.toMatch(/gl_[A-Za-z0-9_-]{32}/);
  });
});

