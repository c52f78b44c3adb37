import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/operations/table.js';
import { errorCodesDocument, manifestTools, operationsTable, replaceTable } from '../../src/surfaces/docs.js';
import { ERROR_CODES } from '../../src/errors.js';
import { openApiDocument } from '../../src/surfaces/rest/openapi.js';

describe('documents derived from the operation table', () => {
  it("README's operation table is the one generated from the table (npm run docs)", () => {
    const readme = fs.readFileSync('README.md', 'utf8');
    expect(replaceTable(readme, operationsTable(OPERATIONS))).toBe(readme);
    for (const operation of OPERATIONS) expect(readme).toContain(`\`${operation.name}\``);
  });

  it("manifest.json lists the tools the bundle's server lists (no REST-only view, no tool listed only on request) and treats the API key as a sensitive setting", () => {
    const manifest = JSON.parse(fs.readFileSync('manifest.json', 'utf8'));
    expect(manifest.manifest_version).toBe('0.3');
    expect(manifest.tools).toEqual(manifestTools(OPERATIONS));
    const names = manifest.tools.map((tool: { name: string }) => tool.name);
    for (const operation of OPERATIONS.filter((op) => op.restOnly || op.mcpOnRequest || op.mcpGroupOnly)) expect(names).not.toContain(operation.name);
    expect(manifest.user_config.api_key.sensitive).toBe(true);
    expect(manifest.server.mcp_config.env.GLEANER_API_KEY).toBe('${user_config.api_key}');
  });
});

describe('the error-code table (src/errors.ts)', () => {
  it('docs/errors.md is the one generated from the error codes (npm run docs)', () => {
    expect(fs.readFileSync('docs/errors.md', 'utf8')).toBe(errorCodesDocument());
  });

  it('says for every code its status, what it means and what to do, in docs/errors.md and the OpenAPI document', () => {
    const markdown = fs.readFileSync('docs/errors.md', 'utf8');
    const document = openApiDocument(OPERATIONS) as any;
    expect(document.components['x-error-codes']).toEqual(ERROR_CODES);
    for (const [code, { status, meaning, fix }] of Object.entries(ERROR_CODES)) {
      expect(meaning.length, code).toBeGreaterThan(20);
      expect(fix.length, code).toBeGreaterThan(20);
      expect(markdown).toContain(`| ${status} | \`${code}\` | ${meaning} | ${fix} |`);
      // The document's description carries the same table, and each error response names its codes.
      expect(document.info.description).toContain(`| ${status} | \`${code}\` | ${meaning} | ${fix} |`);
    }
    for (const [path, methods] of Object.entries<any>(document.paths)) {
      for (const [method, entry] of Object.entries<any>(methods)) {
        for (const [status, response] of Object.entries<any>(entry.responses)) {
          if (Number(status) < 400) continue;
          const codes = Object.entries(ERROR_CODES).filter(([, e]) => e.status === Number(status)).map(([code]) => code);
          expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
          for (const code of codes) expect(response.description, `${method} ${path} ${status}`).toContain(`\`${code}\``);
        }
      }
    }
  });
});

describe('the README', () => {
  it('is a page a newcomer reads in minutes: at most 250 lines, the generated operation table included, every docs/ link resolving', () => {
    const readme = fs.readFileSync('README.md', 'utf8');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
    for (const [, target] of readme.matchAll(/\]\((docs\/[^)#]+)(?:#[^)]*)?\)/g)) expect(fs.existsSync(target), target).toBe(true);
  });
});
