/**
 * The OpenAPI 3.1 document, generated from the table of operations: each operation's input as its
 * parameters or body, its output as the typed success body, and the error envelope on every status
 * it can answer with. Aliases share the canonical operation's schemas and say whose alias they are.
 */
import { z } from 'zod';
import { ERROR_CODES } from '../../errors.js';
import { sometimesJob, type AnyOperation } from '../../operations/define.js';
import { errorBody } from '../../operations/outputs.js';
import { buildRoutes, type Route } from './routes.js';
import { inputJsonSchema, resultJsonSchema, successJsonSchemas } from '../schema.js';
import { errorCodesTable, sortedErrorCodes } from '../docs.js';

/**
 * A response's description, from the error codes (src/errors.ts): each code that status carries and
 * what it means; the table at the top of the document (and components["x-error-codes"]) says what to do.
 */
function errorDescription(status: number): string {
  const codes = sortedErrorCodes().filter(([, entry]) => entry.status === status);
  return codes.map(([code, { meaning }]) => `\`${code}\`: ${meaning}`).join('\n\n');
}

/** The statuses an operation can answer with besides its success. */
function errorStatuses(operation: AnyOperation): number[] {
  const statuses = new Set([400, 401, 429, 500]);
  if (operation.plan !== 'Free' || operation.cost !== 0) statuses.add(402);
  if (operation.name === 'job_status' || operation.http.binary) statuses.add(404);
  if (operation.openWorld ?? true) for (const status of [403, 404, 413, 415, 422, 502, 503, 504]) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ description, schema });
const RATE_HEADERS = {
  'X-RateLimit-Limit': header('Requests per minute of the plan (a number, or "unlimited")'),
  'X-RateLimit-Remaining': header('Requests left in the current window (a number, or "unlimited")'),
  'X-RateLimit-Reset': header('Unix time (seconds) at which the window resets', { type: 'integer' }),
};
const CREDIT_HEADERS = {
  'X-Credits-Used': header('Credits this request charged (0 on a job start: the job settles when it ends)', { type: 'integer' }),
  'X-Credits-Remaining': header('Credits left this month (a number, or "unlimited")'),
};
const RESERVED_HEADER = { 'X-Credits-Reserved': header('Credits held for the job until it settles', { type: 'integer' }) };

/** One operationId per route: the operation's name on its canonical route, a derived one on aliases. */
function operationId(route: Route): string {
  const { operation } = route;
  if (route.canonical && route.method === operation.http.method) return operation.name;
  const slug = route.path.replace(/^\/v1\//, '').replace(/\W+/g, '_');
  return `${operation.name}__${route.method.toLowerCase()}_${slug}`;
}

function tagOf(operation: AnyOperation): string {
  return operation.http.path.split('/')[2] ?? 'other';
}

export function openApiDocument(operations: AnyOperation[], serverUrl = '/') {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, unknown> = {
    Error: z.toJSONSchema(errorBody, { target: 'draft-2020-12', io: 'output' }),
  };
  delete (schemas.Error as Record<string, unknown>).$schema;
  for (const operation of operations) {
    const { reply, job } = successJsonSchemas(operation);
    schemas[`${operation.name}_reply`] = reply;
    if (job) schemas[`${operation.name}_job`] = job;
    if (operation.http.inlineAliases?.length) schemas[`${operation.name}_result`] = resultJsonSchema(operation);
  }

  for (const route of buildRoutes(operations)) {
    const { operation } = route;
    const schema = inputJsonSchema(operation) as { properties?: Record<string, unknown>; required?: string[] };
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const parameters = Object.entries(schema.properties ?? {}).map(([name, property]) => ({
      name,
      in: pathParams.includes(name) ? 'path' : 'query',
      required: pathParams.includes(name) || (schema.required ?? []).includes(name),
      schema: property,
    }));
    const cost = typeof operation.cost === 'number' ? `${operation.cost} credit(s)` : 'variable (see README)';
    const alias = route.canonical && route.method === operation.http.method ? undefined : `${operation.http.method} ${operation.http.path}`;
    const startsJob = operation.kind === 'job' && !route.inline;
    const successStatus = String(route.inline ? 200 : (operation.http.successStatus ?? (startsJob ? 202 : 200)));
    const responses: Record<string, unknown> = {
      [successStatus]: {
        description: startsJob ? 'The job, started (poll GET /v1/jobs/{jobId})' : route.inline ? 'The result, at once' : 'Success',
        headers: { ...RATE_HEADERS, ...CREDIT_HEADERS, ...(startsJob ? RESERVED_HEADER : {}) },
        content: operation.http.binary
          ? { [operation.http.binary]: { schema: { type: 'string', contentMediaType: operation.http.binary } } }
          : { 'application/json': { schema: { $ref: `#/components/schemas/${operation.name}_${route.inline ? 'result' : 'reply'}` } } },
      },
    };
    // An operation that runs as a job for some inputs or on request (Operation.jobWhen, handsOffToJobs) also answers 202 with the job.
    if (sometimesJob(operation) && !route.inline) {
      responses['202'] = {
        description: operation.jobWhen
          ? 'The job, started for this shape of input (poll GET /v1/jobs/{jobId})'
          : 'The job, started because the request said `Prefer: respond-async` and the work is slow (poll GET /v1/jobs/{jobId})',
        headers: { ...RATE_HEADERS, ...CREDIT_HEADERS, ...RESERVED_HEADER },
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${operation.name}_job` } } },
      };
    }
    for (const status of errorStatuses(operation)) {
      responses[String(status)] = {
        description: errorDescription(status),
        ...(status === 429 ? { headers: { 'Retry-After': header('Seconds to wait before retrying', { type: 'integer' }) } } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: operationId(route),
      tags: [tagOf(operation)],
      summary: alias ? `${operation.title} (alias)` : operation.title,
      description: `${operation.description}\n\nPlan: ${operation.plan}+. Cost: ${cost}.${alias ? ` Alias of ${alias}: same input, ${route.inline ? 'but the work runs in the request and the reply is its result (200), as the specification gives this path.' : 'same reply.'}` : ''}`,
      ...(alias ? { 'x-alias-of': operation.name } : {}),
      ...(route.method !== 'POST'
        ? { parameters }
        : {
            parameters: parameters.filter((p) => p.in === 'path'),
            requestBody: { required: true, content: { 'application/json': { schema } } },
          }),
      responses,
      security: [{ apiKey: [] }],
    };
  }
  const tags = [...new Set(operations.map(tagOf))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gleaner',
      version: '1.0.0',
      description: `Transcripts, metadata, search and web extraction for AI assistants. Send the key in the \`x-api-key\` header.\n\n## Error codes\n\nEvery error answers the envelope \`{ "error": { "code", "message", "requestId" }, "message" }\`; a failed call charges no credits.\n\n${errorCodesTable()}`,
    },
    servers: [{ url: serverUrl, description: 'This server' }],
    tags,
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas,
      // The error codes, machine-readable: status, meaning and what to do (src/errors.ts).
      'x-error-codes': ERROR_CODES,
    },
  };
}
