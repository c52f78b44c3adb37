/**
 * Which key a request carries. `x-api-key` is Gleaner's own header; `Authorization: Bearer <key>` is
 * what MCP clients and most HTTP tooling send, so both are read, the same way on REST and /mcp.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Sent with REST's 401s: the API takes keys (OAuth tokens are for /mcp, whose 401s name its sign-in instead). */
export const WWW_AUTHENTICATE = 'Bearer realm="gleaner", error_description="Send the API key as Authorization: Bearer <key> or in the x-api-key header"';

function first(value: unknown): string | undefined {
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The key of a request: x-api-key first, then a Bearer token; undefined when neither is there. */
export function apiKeyFrom(headers: IncomingHttpHeaders | Record<string, unknown> | undefined): string | undefined {
  const direct = first(headers?.['x-api-key'])?.trim();
  if (direct) return direct;
  const authorization = first(headers?.authorization)?.trim();
  const bearer = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  return bearer?.[1];
}
