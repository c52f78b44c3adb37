/**
 * The files an operator deploys from, read and checked for what matters: the Dockerfile (a Debian
 * image with ffmpeg and Chromium, built with npm ci and npm run build, running dist/ as a user other
 * than root, with a /healthz check and the data directory as a volume), compose.yaml (Redis, two
 * `gleaner serve`, two `gleaner worker` sharing GLEANER_STORE_URL, started in order) and the LICENSE.
 * Every GLEANER_* setting in them is one src/config.ts reads, with a value it accepts.
 *
 * CI has no Docker engine: test/processes/docker.test.ts builds and starts the files where one and
 * `docker compose` answer, and says why it skips where they do not.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, isLoopbackHost, loadConfig } from '../../src/config.js';

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions (comments dropped, continuation lines joined), split into stages at FROM. */
function dockerfileStages(text: string): Instruction[][] {
  const joined = text.replace(/\\\n/g, ' ');
  const instructions = joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, keyword, args] = /^(\w+)\s+(.*)$/.exec(line)!;
      return { keyword: keyword.toUpperCase(), args: args.trim() };
    });
  const stages: Instruction[][] = [[]];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

/** ENV a=b c=d (and the legacy `ENV a b`) as a record. */
function envOf(stage: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of stage.filter((i) => i.keyword === 'ENV')) {
    const pairs = [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g)];
    if (pairs.length === 0) {
      const [name, ...value] = args.split(/\s+/);
      env[name] = value.join(' ');
    }
    for (const [, name, value] of pairs) env[name] = value.replace(/^"|"$/g, '');
  }
  return env;
}

const dockerfile = fs.readFileSync('Dockerfile', 'utf8');
const [preamble, ...stages] = dockerfileStages(dockerfile);
const final = stages.at(-1)!;
const finalEnv = envOf(final);
const args = Object.fromEntries(preamble.filter((i) => i.keyword === 'ARG').map((i) => i.args.split('=') as [string, string]));
const image = (from: string) => from.split(/\s+/)[0].replace(/^\$\{(\w+)\}$/, (_, name: string) => args[name] ?? '');

describe('the Dockerfile', () => {
  it('builds on a Debian image with npm ci and npm run build, and runs the built dist/', () => {
    expect(stages.length).toBeGreaterThanOrEqual(1);
    for (const stage of stages) {
      // node:<version>-bookworm(-slim) or -trixie: Debian 12 or 13 (an Alpine or distroless base has no apt).
      const base = image(stage[0].args);
      expect(base, stage[0].args).toMatch(/^(node:\d+(\.\d+)*-(bookworm|trixie)(-slim)?|debian:(bookworm|trixie)(-slim)?)$/);
      const node = /^node:(\d+)/.exec(base);
      if (node) expect([20, 22, 24]).toContain(Number(node[1]));
    }
    const runs = stages.flat().filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((run) => /\bnpm ci\b/.test(run))).toBe(true);
    expect(runs.some((run) => /\bnpm run build\b/.test(run))).toBe(true);
    // An install that skips scripts skips the postinstall that applies patches/: the image applies them itself.
    if (runs.some((run) => /\bnpm ci\b.*--ignore-scripts/.test(run))) expect(runs.some((run) => /\bpatch-package\b/.test(run))).toBe(true);
    // The image starts the compiled CLI, not tsx.
    const start = final.filter((i) => i.keyword === 'ENTRYPOINT' || i.keyword === 'CMD').map((i) => i.args).join(' ');
    expect(start).toContain('dist/cli/main.js');
    expect(start).not.toContain('tsx');
    expect(JSON.parse(final.find((i) => i.keyword === 'CMD')!.args)).toEqual(['serve']);
  });

  it('installs ffmpeg and Chromium from Debian, and points Gleaner at them', () => {
    const apt = final.filter((i) => i.keyword === 'RUN' && /apt-get install/.test(i.args)).map((i) => i.args).join(' ');
    const packages = apt.split(/\s+/);
    for (const name of ['ffmpeg', 'chromium', 'ca-certificates']) expect(packages, name).toContain(name);
    expect(apt).toMatch(/--no-install-recommends/);
    expect(apt).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
    expect(finalEnv.GLEANER_BROWSER_PATH).toBe('/usr/bin/chromium');
  });

  it('runs as a user other than root, which it creates', () => {
    const user = final.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    const name = user!.split(':')[0];
    const created = final.filter((i) => i.keyword === 'RUN').some((i) => new RegExp(`useradd\\b.*\\b${name}$|useradd\\b.*\\b${name}\\s`).test(i.args));
    expect(created, `useradd ${name}`).toBe(true);
    // Nothing after USER switches back to root.
    const afterUser = final.slice(final.findIndex((i) => i.keyword === 'USER'));
    expect(afterUser.filter((i) => i.keyword === 'RUN')).toEqual([]);
  });

  it('checks /healthz on the port it listens on, keeps the data directory in a volume, and listens beyond loopback', () => {
    const health = final.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
    expect(health).toMatch(/\bCMD\b/);
    expect(health).toContain('/healthz');
    expect(health).toContain('GLEANER_PORT');
    expect(final.find((i) => i.keyword === 'EXPOSE')?.args).toBe(finalEnv.GLEANER_PORT);
    const volumes = final.filter((i) => i.keyword === 'VOLUME').flatMap((i) => (i.args.startsWith('[') ? (JSON.parse(i.args) as string[]) : i.args.split(/\s+/)));
    expect(volumes).toContain(finalEnv.GLEANER_DATA_DIR);
    // Bound to loopback, the published port would reach nothing.
    expect(isLoopbackHost(finalEnv.GLEANER_HOST)).toBe(false);
  });

  it('sets only GLEANER_* variables that src/config.ts reads, with values it accepts', () => {
    const names = Object.keys(finalEnv).filter((name) => name.startsWith('GLEANER_'));
    expect(names.length).toBeGreaterThan(3);
    for (const name of names) expect(CONFIG_VARIABLES, name).toContain(name);
    const config = loadConfig(Object.fromEntries(names.map((name) => [name, finalEnv[name]])));
    expect(config.GLEANER_PORT).toBe(8080);
    expect(config.GLEANER_DATA_DIR).toBe('/data');
  });

  it('copies only files the repository has and .dockerignore lets through', () => {
    const ignored = fs
      .readFileSync('.dockerignore', 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    for (const copy of stages.flat().filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))) {
      const sources = copy.args.split(/\s+/).filter((part) => !part.startsWith('--')).slice(0, -1);
      for (const source of sources) {
        expect(fs.existsSync(source), source).toBe(true);
        expect(ignored, source).not.toContain(source);
      }
    }
    // The build context leaves out what is rebuilt inside (node_modules, dist) and what is not needed.
    for (const name of ['node_modules', 'dist', '.git']) expect(ignored).toContain(name);
  });
});

interface Service {
  image?: string;
  build?: string | { context: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  ports?: string[];
  volumes?: string[];
}

// Compose's `${NAME:-default}` read as its default: what the file runs where the variable is not set.
const withDefaults = (text: string) => text.replace(/\$\{\w+:-([^}]*)\}/g, '$1');
const compose = parse(withDefaults(fs.readFileSync('compose.yaml', 'utf8')), { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = Object.entries(compose.services);
const gleaner = services.filter(([, service]) => service.build !== undefined || service.image?.startsWith('gleaner'));
const byCommand = (name: string) => gleaner.filter(([, service]) => service.command?.[0] === name);

describe('compose.yaml', () => {
  it('has Redis, two `gleaner serve` (one may be --no-worker) and two `gleaner worker`, built from the Dockerfile', () => {
    const redis = compose.services.redis;
    expect(redis?.image).toMatch(/^redis:/);
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(byCommand('serve')).toHaveLength(2);
    expect(byCommand('worker')).toHaveLength(2);
    expect(gleaner).toHaveLength(4);
    for (const [name, service] of gleaner) {
      const context = typeof service.build === 'string' ? service.build : service.build?.context;
      expect(context, name).toBe('.');
      // A base image given to the build is the Dockerfile's own default (a variable may replace it, not the file).
      const buildArgs = typeof service.build === 'object' ? (service.build.args ?? {}) : {};
      for (const [arg, value] of Object.entries(buildArgs)) expect(value, `${name}: ${arg}`).toBe(args[arg]);
      // Only options the commands take: `serve --no-worker` (src/cli/serve.ts), `worker` none.
      const [command, ...options] = service.command!;
      expect(options.every((option) => command === 'serve' && option === '--no-worker'), `${name}: ${service.command!.join(' ')}`).toBe(true);
    }
    expect(byCommand('serve').filter(([, s]) => s.command!.includes('--no-worker'))).toHaveLength(1);
  });

  it('gives every Gleaner service the same GLEANER_STORE_URL, on the Redis service, and only settings config.ts reads and accepts', () => {
    const urls = new Set(gleaner.map(([, service]) => service.environment?.GLEANER_STORE_URL));
    expect(urls.size).toBe(1);
    const url = new URL([...urls][0]!);
    expect(url.protocol).toBe('redis:');
    expect(Object.keys(compose.services)).toContain(url.hostname);
    for (const [name, service] of gleaner) {
      const environment = service.environment ?? {};
      for (const variable of Object.keys(environment)) expect(CONFIG_VARIABLES, `${name}: ${variable}`).toContain(variable);
      // The Dockerfile's settings under the service's own, as the container sees them.
      const config = loadConfig({ ...finalEnv, ...environment });
      expect(config.GLEANER_STORE_URL).toBe(url.href.replace(/\/$/, ''));
    }
  });

  it('starts Gleaner after Redis is healthy, the second serve after the first (one owner key), and checks health where HTTP is served', () => {
    for (const [name, service] of gleaner) expect(service.depends_on?.redis?.condition, name).toBe('service_healthy');
    const [[first], [secondName, second]] = byCommand('serve');
    expect(second.depends_on?.[first]?.condition, secondName).toBe('service_healthy');
    // The serve services keep the image's /healthz check; a worker serves no HTTP, so its check is off.
    for (const [name, service] of byCommand('serve')) {
      expect(service.healthcheck?.disable, name).not.toBe(true);
      expect(service.ports?.length, name).toBe(1);
      expect(service.ports![0], name).toMatch(new RegExp(`:${finalEnv.GLEANER_PORT}$`));
    }
    for (const [name, service] of byCommand('worker')) {
      expect(service.healthcheck?.disable, name).toBe(true);
      expect(service.ports, name).toBeUndefined();
    }
  });

  it('mounts each Gleaner service a declared volume at the data directory', () => {
    for (const [name, service] of gleaner) {
      const mount = service.volumes?.find((volume) => volume.endsWith(`:${finalEnv.GLEANER_DATA_DIR}`));
      expect(mount, name).toBeDefined();
      expect(Object.keys(compose.volumes ?? {}), name).toContain(mount!.split(':')[0]);
    }
  });
});

describe('LICENSE', () => {
  it("is the MIT licence package.json names", () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { license: string };
    expect(pkg.license).toBe('MIT');
    const license = fs.readFileSync('LICENSE', 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    expect(license).toContain('Permission is hereby granted, free of charge');
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
  });
});
