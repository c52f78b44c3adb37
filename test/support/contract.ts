/**
 * Every reply the test harness sees is checked against the OpenAPI document the server serves: a
 * success against its operation's declared body, an error against the envelope. A reply that
 * drifts from its declared shape fails the test that provoked it.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { AnyOperation } from '../../src/operations/define.js';
import { openApiDocument } from '../../src/surfaces/rest/openapi.js';
import { buildRoutes, type Route } from '../../src/surfaces/rest/routes.js';

export interface ReplyChecker {
  check(method: string, pathAndQuery: string, status: number, body: unknown): void;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export function replyChecker(operations: AnyOperation[]): ReplyChecker {
  const document = openApiDocument(operations);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(document as object, 'openapi.json');
  const routes = buildRoutes(operations);
  const compiled = new Map<string, ValidateFunction>();
  const validator = (ref: string) => {
    let validate = compiled.get(ref);
    if (!validate) compiled.set(ref, (validate = ajv.compile({ $ref: ref })));
    return validate;
  };

  return {
    check(method, pathAndQuery, status, body) {
      const pathname = new URL(pathAndQuery, 'http://x').pathname;
      if (!pathname.startsWith('/v1/') || pathname === '/v1/openapi.json') return;
      // A path the router refuses (a malformed %-escape) matches no route: its reply is checked as an error.
      const matches = (r: Route) => {
        try {
          return r.method === method && Boolean(r.match(pathname));
        } catch {
          return false;
        }
      };
      const route: Route | undefined = routes.find(matches);
      const declared = route && (document.paths[route.path]?.[method.toLowerCase()] as { responses: Record<string, unknown> } | undefined);
      let ref: string;
      if (status >= 400) ref = 'openapi.json#/components/schemas/Error';
      else if (declared && declared.responses[String(status)]) {
        ref = `openapi.json#/${pointer('paths', route!.path, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}`;
      } else throw new Error(`${method} ${pathname} answered ${status}, a status its OpenAPI entry does not declare`);
      if (status >= 400 && declared && !declared.responses[String(status)] && status !== 404 && status !== 405) {
        throw new Error(`${method} ${pathname} answered ${status}, an error status its OpenAPI entry does not declare`);
      }
      const validate = validator(ref);
      if (!validate(body)) {
        throw new Error(`${method} ${pathname} (${status}) does not match its declared reply: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
      }
    },
  };
}
