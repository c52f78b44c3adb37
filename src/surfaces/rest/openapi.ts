/** The OpenAPI 3.1 document, generated from the table of operations. */
import { ERROR_CODES } from '../../errors.js';
import type { AnyOperation } from '../../operations/define.js';
import { buildRoutes } from './routes.js';
import { inputJsonSchema } from '../schema.js';

export function openApiDocument(operations: AnyOperation[]) {
  const paths: Record<string, Record<string, unknown>> = {};
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
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: route.canonical && route.method === operation.http.method ? operation.name : `${operation.name}_${route.method.toLowerCase()}_${route.path.replace(/\W+/g, '_')}`,
      summary: operation.title,
      description: `${operation.description}\n\nPlan: ${operation.plan}+. Cost: ${cost}.${route.canonical ? '' : ` Alias of ${operation.http.path}.`}`,
      ...(route.method !== 'POST'
        ? { parameters }
        : {
            parameters: parameters.filter((p) => p.in === 'path'),
            requestBody: { required: true, content: { 'application/json': { schema } } },
          }),
      responses: {
        [operation.kind === 'job' ? '202' : '200']: { description: 'Success', content: { 'application/json': { schema: { type: 'object' } } } },
        default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
      security: [{ apiKey: [] }],
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Gleaner', version: '1.0.0', description: 'Transcripts, metadata, search and web extraction for AI assistants.' },
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'requestId'],
              properties: { code: { type: 'string', enum: Object.keys(ERROR_CODES) }, message: { type: 'string' }, requestId: { type: 'string' } },
            },
          },
        },
      },
    },
  };
}
