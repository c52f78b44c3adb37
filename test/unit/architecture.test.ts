/**
 * The structure of src/ as scripts/structure.ts draws it from the imports: no circle of imports, and
 * no import from a folder to another on its own or a higher floor.
 */
import { describe, expect, it } from 'vitest';
import { readStructure } from '../../scripts/structure.js';

describe('the structure of src/', () => {
  const structure = readStructure();

  it('reads the imports of every source file', () => {
    expect(structure.files.length).toBeGreaterThan(100);
    expect(structure.edges.length).toBeGreaterThan(structure.files.length);
  });

  it('has no circle of imports', () => {
    expect(structure.circles).toEqual([]);
  });

  it('has no import up a floor, and every folder sits on a floor', () => {
    expect(structure.upward).toEqual([]);
    expect(structure.unplaced).toEqual([]);
  });

  it('keeps the source contract apart from the registry that imports every source', () => {
    const importsOf = (file: string) => structure.edges.filter((edge) => edge.from === file).map((edge) => edge.to);
    expect(importsOf('sources/contract.ts')).not.toContain('sources/registry.ts');
    for (const source of ['sources/youtube.ts', 'sources/social.ts', 'sources/direct-file.ts']) expect(importsOf(source)).not.toContain('sources/registry.ts');
  });
});
