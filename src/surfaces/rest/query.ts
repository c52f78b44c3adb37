/**
 * Query strings carry only text: turn each parameter into the type the operation's input schema
 * declares (number, boolean, array), so zod validates real values and reports real bounds.
 */
type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; properties?: Record<string, JsonSchema>; items?: JsonSchema };

function typesOf(schema: JsonSchema | undefined): Set<string> {
  const types = new Set<string>();
  if (!schema) return types;
  if (Array.isArray(schema.type)) schema.type.forEach((t) => types.add(t));
  else if (schema.type) types.add(schema.type);
  for (const member of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) typesOf(member).forEach((t) => types.add(t));
  return types;
}

function scalar(value: string, types: Set<string>): unknown {
  // An object (a JSON Schema) comes as JSON text; text that is not JSON is left for the validation to refuse.
  if (types.has('object') && !types.has('string') && value.trimStart().startsWith('{')) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  if ((types.has('integer') || types.has('number')) && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  if (types.has('boolean')) {
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === '1' || lower === '') return true;
    if (lower === 'false' || lower === '0') return false;
  }
  return value;
}

export function queryToInput(params: URLSearchParams, schema: JsonSchema): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    const property = schema.properties?.[name];
    const types = typesOf(property);
    if (types.has('array')) {
      const itemTypes = typesOf(property?.items);
      input[name] = values.flatMap((v) => v.split(',')).filter((v) => v !== '').map((v) => scalar(v, itemTypes));
    } else {
      input[name] = scalar(values[values.length - 1], types);
    }
  }
  return input;
}
