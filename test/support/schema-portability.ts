/**
 * The JSON Schema rules an MCP tool list must keep to be read by strict clients (issue 19.2): the
 * MCP Inspector's strict mode warns on the first three; schema-to-function converters of model APIs
 * refuse the rest. Returns one line per problem, with the JSON pointer of the node.
 *
 * - `type` is one string, never an array (`["string", "null"]`);
 * - no `null` schema, as a type or a union branch: a nullable value is left undescribed;
 * - no empty schema: every node says a type, a union, an enum or a constant;
 * - `additionalProperties`, where present, is a boolean, never a schema;
 * - no `$ref`/`$defs`, `propertyNames` or `patternProperties`: each tool's schema stands alone.
 */
type Node = Record<string, unknown>;

const CONSTRAINING = ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const'];
const FORBIDDEN = ['$ref', '$defs', 'definitions', 'propertyNames', 'patternProperties'];

export function portabilityProblems(schema: unknown, at = ''): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [`${at || '/'}: not a schema object`];
  const node = schema as Node;
  const problems: string[] = [];
  const here = at || '/';
  if (Array.isArray(node.type)) problems.push(`${here}: type is an array (${JSON.stringify(node.type)})`);
  if (node.type === 'null') problems.push(`${here}: a null schema`);
  if (!CONSTRAINING.some((keyword) => node[keyword] !== undefined)) problems.push(`${here}: an empty schema (${JSON.stringify(node).slice(0, 80)})`);
  if (node.additionalProperties !== undefined && typeof node.additionalProperties !== 'boolean') problems.push(`${here}: additionalProperties is a schema`);
  for (const keyword of FORBIDDEN) if (node[keyword] !== undefined) problems.push(`${here}: uses ${keyword}`);
  if (node.properties !== undefined) {
    for (const [name, child] of Object.entries(node.properties as Record<string, unknown>)) problems.push(...portabilityProblems(child, `${at}/properties/${name}`));
  }
  if (node.items !== undefined) problems.push(...portabilityProblems(node.items, `${at}/items`));
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = node[keyword];
    if (branches === undefined) continue;
    if (!Array.isArray(branches) || branches.length === 0) problems.push(`${here}: ${keyword} is not a list of schemas`);
    else branches.forEach((branch, i) => problems.push(...portabilityProblems(branch, `${at}/${keyword}/${i}`)));
  }
  return problems;
}

/** `schema` without its null branch (as zod writes a nullable: anyOf [X, { type: "null" }]). */
function nonNull(schema: Node): Node {
  const branches = schema.anyOf as Node[] | undefined;
  if (!branches?.some((b) => b.type === 'null')) return schema;
  const rest = branches.filter((b) => b.type !== 'null');
  return rest.length === 1 ? rest[0] : { anyOf: rest };
}

/**
 * Problems that would make `loose` refuse a value `strict` accepts: every value valid against the
 * REST reply schema must stay valid against the MCP outputSchema made from it. Extra optional
 * properties are fine (the REST objects are closed, so no valid value carries them).
 */
export function looseningProblems(loose: Node, strict: Node, at = ''): string[] {
  const here = at || '/';
  const target = nonNull(strict);
  if (strict !== target && at) return [`${here}: describes a value that may be null`];
  const problems: string[] = [];
  if (loose.additionalProperties === false) problems.push(`${here}: additionalProperties false`);
  if (loose.anyOf) {
    const strictBranches = (target.anyOf as Node[] | undefined) ?? [target];
    // Every value of every strict branch must fit some loose branch.
    for (const branch of strictBranches) {
      if (!(loose.anyOf as Node[]).some((l) => looseningProblems(l, branch, at).length === 0)) problems.push(`${here}: no branch takes ${JSON.stringify(branch).slice(0, 80)}`);
    }
    return problems;
  }
  if (loose.type !== undefined) {
    const types = target.anyOf ? (target.anyOf as Node[]).map((b) => b.type) : [target.type];
    if (types.some((t) => t !== loose.type && !(loose.type === 'number' && t === 'integer'))) problems.push(`${here}: type ${String(loose.type)} where the reply has ${types.join('|')}`);
  }
  if (Array.isArray(loose.enum) && Array.isArray(target.enum) && (target.enum as unknown[]).some((v) => !(loose.enum as unknown[]).includes(v))) problems.push(`${here}: enum narrower than the reply's`);
  const strictRequired = new Set((target.required as string[] | undefined) ?? []);
  for (const name of (loose.required as string[] | undefined) ?? []) if (!strictRequired.has(name)) problems.push(`${here}: requires ${name}, which a reply may lack`);
  const strictProperties = (target.properties as Record<string, Node> | undefined) ?? {};
  for (const [name, child] of Object.entries((loose.properties as Record<string, Node> | undefined) ?? {})) {
    if (strictProperties[name]) problems.push(...looseningProblems(child, strictProperties[name], `${at}/properties/${name}`));
  }
  if (loose.items && target.items) problems.push(...looseningProblems(loose.items as Node, target.items as Node, `${at}/items`));
  return problems;
}
