/**
 * server.json, what the MCP Registry lists Gleaner by: valid against the registry's schema (a copy in
 * test/fixtures/mcp-registry), and never drifting from package.json (name, version) or manifest.json (the tools).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const server = read('server.json');
const schema = read('test/fixtures/mcp-registry/server.schema.json');
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function validator() {
  // strict: false, as the registry's own schema carries OpenAPI keywords (example, discriminator) JSON Schema does not define.
  return addFormats(new Ajv({ strict: false, allErrors: true })).compile(schema);
}

describe('server.json', () => {
  it('validates against the MCP Registry schema it names', () => {
    expect(server.$schema).toBe(schema.$id);
    const validate = validator();
    expect(validate(server), JSON.stringify(validate.errors)).toBe(true);
  });

  it('the schema refuses what the registry refuses (a name without a namespace, a package at "latest")', () => {
    const validate = validator();
    expect(validate({ ...server, name: 'gleaner' })).toBe(false);
    expect(validate({ ...server, packages: [{ ...server.packages[0], version: 'latest' }] })).toBe(false);
    expect(validate({ ...server, description: 'x'.repeat(101) })).toBe(false);
  });

  it('names the npm package and version of package.json, and the tools of manifest.json', () => {
    const pkg = read('package.json');
    const manifest = read('manifest.json');
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toEqual([expect.objectContaining({ registryType: 'npm', identifier: pkg.name, version: pkg.version, transport: { type: 'stdio' } })]);
    expect(server.packages[0].packageArguments).toEqual([{ type: 'positional', value: 'mcp' }]);
    expect(server._meta['io.modelcontextprotocol.registry/publisher-provided'].tools).toEqual(manifest.tools.map((tool: { name: string }) => tool.name));
  });
});
