/**
 * Starts a module of this folder on a worker thread: the built JavaScript, or under tsx and vitest
 * the TypeScript source, which the thread can only import once it has registered tsx itself.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startThread(name: string, options: WorkerOptions): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const script = new URL(`./${name}${fromSources ? '.ts' : '.js'}`, import.meta.url);
  if (!fromSources) return new Worker(script, { execArgv: [], ...options });
  return new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); })`, { ...options, eval: true });
}
