/** The REST routes, derived from the table of operations: canonical paths and their aliases. */
import type { AnyOperation } from '../../operations/define.js';
import { GleanerError } from '../../errors.js';

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  operation: AnyOperation;
  canonical: boolean;
  /** The work runs in the request and the reply is its result, even for a job operation (HttpBinding.inlineAliases). */
  inline: boolean;
  match(pathname: string): Record<string, string> | undefined;
}

function compile(path: string): (pathname: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const regex = new RegExp(`^${pattern}/?$`);
  return (pathname) => {
    const found = regex.exec(pathname);
    if (!found) return undefined;
    return Object.fromEntries(names.map((name, i) => [name, decodeParam(name, found[i + 1])]));
  };
}

/** A malformed %-escape (`/v1/jobs/%ZZ`) is the client's mistake: a 400, not a URIError. */
function decodeParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new GleanerError('INVALID_REQUEST', `The path parameter ${name} has a malformed %-escape.`);
  }
}

export function buildRoutes(operations: AnyOperation[]): Route[] {
  const routes: Route[] = [];
  for (const operation of operations) {
    const { method, path, aliases = [], alsoGet, alsoPost, inlineAliases = [] } = operation.http;
    const methods: Array<Route['method']> = alsoGet && method === 'POST' ? ['POST', 'GET'] : alsoPost && method === 'GET' ? ['GET', 'POST'] : [method];
    for (const [index, p] of [path, ...aliases, ...inlineAliases].entries()) {
      const inline = inlineAliases.includes(p);
      for (const m of methods) routes.push({ method: m, path: p, operation, canonical: index === 0, inline, match: compile(p) });
    }
  }
  return routes;
}
