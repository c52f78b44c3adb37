/**
 * What tools/list says about each tool: the operations an operator chose (GLEANER_MCP_TOOLS), each
 * with a short description, small portable schemas (schemas.ts) and only the annotations that
 * differ from the MCP defaults. The whole list is part of every conversation's context.
 */
import type { AnyOperation } from '../../operations/define.js';
import { TOOL_GROUPS, type ToolGroup } from '../../operations/define.js';
import { mcpInputSchema, mcpOutputSchema } from './schemas.js';

type ToolAnnotations = Partial<Record<'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint', boolean>>;

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
}

/** Only what differs from the MCP defaults (not read-only, destructive, not idempotent, open world). */
function annotationsOf(operation: AnyOperation): ToolAnnotations {
  // Starting a job creates something (a job record, a webhook delivery): never read-only.
  const readOnly = operation.kind === 'sync' && (operation.readOnly ?? false);
  // A charged call repeated is charged again.
  const idempotent = operation.kind === 'sync' && operation.cost === 0;
  return {
    ...(readOnly ? { readOnlyHint: true } : { destructiveHint: false }),
    ...(idempotent ? { idempotentHint: true } : {}),
    ...(operation.openWorld === false ? { openWorldHint: false } : {}),
  };
}

/**
 * The operations GLEANER_MCP_TOOLS lists: groups add their tools but those on request, a name adds its
 * tool, `all` every tool; unset, all but those on request or group-only. REST-only views are never tools.
 */
export function selectOperations(operations: AnyOperation[], wanted: string[] | undefined): AnyOperation[] {
  const tools = operations.filter((operation) => !operation.restOnly);
  if (wanted?.includes('all')) return tools;
  if (!wanted || wanted.length === 0) return tools.filter((operation) => !operation.mcpOnRequest && !operation.mcpGroupOnly);
  const names = new Set(tools.map((operation) => operation.name));
  const unknown = wanted.filter((entry) => !(TOOL_GROUPS as readonly string[]).includes(entry) && !names.has(entry));
  if (unknown.length) {
    throw new Error(
      `GLEANER_MCP_TOOLS: ${unknown.map((entry) => `"${entry}"`).join(', ')} is neither a tool group (${TOOL_GROUPS.join(', ')}, all) nor a tool name (${[...names].join(', ')}).`,
    );
  }
  const chosen = new Set(wanted);
  return tools.filter((operation) => chosen.has(operation.name) || (!operation.mcpOnRequest && (operation.groups ?? []).some((group: ToolGroup) => chosen.has(group))));
}

export function toolDescriptor(operation: AnyOperation, waitSeconds: number): ToolDescriptor {
  return {
    name: operation.name,
    title: operation.title,
    description: operation.kind === 'job' ? `${operation.description} Tasks clients get a task; others the result in ${waitSeconds} s or a jobId for job_status.` : operation.description,
    inputSchema: mcpInputSchema(operation),
    outputSchema: mcpOutputSchema(operation),
    annotations: annotationsOf(operation),
  };
}
