/**
 * The structure drawing of src/: which folder imports which, drawn by floor from its imports.
 * `npm run structure` prints it; test/unit/architecture.test.ts holds the rules it shows (no circle,
 * no import up a floor).
 *
 * Every import counts, type-only ones too: a type loop still ties two files' meaning together.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Floors, lowest first. A file may import its own folder and any folder on a lower floor; an import
 * to the same or a higher floor of another folder is a defect. Top-level files count as folders.
 */
export const FLOORS: readonly (readonly string[])[] = [
  ['redact', 'types', 'model', 'deadline'],
  ['errors', 'profile'],
  ['config', 'log', 'observability'],
  ['net', 'store'],
  ['platforms', 'web', 'ai', 'accounts', 'jobs'],
  ['media'],
  ['sources'],
  ['watches'],
  ['operations'],
  ['gate'],
  ['app'],
  ['surfaces'],
  ['cli'],
];

export interface ImportEdge {
  from: string;
  to: string;
}

export interface Structure {
  files: string[];
  edges: ImportEdge[];
  /** Strongly connected groups of more than one file: each is a circle of imports. */
  circles: string[][];
  /** Imports from a folder to another on the same or a higher floor. */
  upward: ImportEdge[];
  /** Folders that appear in src/ but in no floor. */
  unplaced: string[];
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier).replace(/\.(m?js)$/, (_, ext: string) => (ext === 'mjs' ? '.mts' : '.ts'));
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  return undefined;
}

/** The folder a file belongs to for the floor rules: its top-level folder, or its own name at the top. */
export function folderOf(file: string): string {
  const [first, ...rest] = file.split('/');
  return rest.length === 0 ? first.replace(/\.m?ts$/, '') : first;
}

const floorOf = (folder: string) => FLOORS.findIndex((floor) => floor.includes(folder));

function circlesOf(files: string[], edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== file);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

export function readStructure(): Structure {
  const absolute = sourceFiles(root);
  const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const edges: ImportEdge[] = [];
  for (const file of absolute) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      const target = resolveImport(file, fileName);
      if (target) edges.push({ from: relative(file), to: relative(target) });
    }
  }
  const files = absolute.map(relative).sort();
  const upward = edges.filter((edge) => {
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    return from !== to && floorOf(to) >= floorOf(from);
  });
  const unplaced = [...new Set(files.map(folderOf))].filter((folder) => floorOf(folder) < 0).sort();
  return { files, edges, circles: circlesOf(files, edges), upward, unplaced };
}

/** The drawing: each floor from the top, each folder with the lower folders it imports and how often. */
export function drawStructure(structure: Structure): string {
  const lines: string[] = [];
  for (let floor = FLOORS.length - 1; floor >= 0; floor -= 1) {
    for (const folder of FLOORS[floor]) {
      const counts = new Map<string, number>();
      for (const edge of structure.edges) {
        if (folderOf(edge.from) !== folder || folderOf(edge.to) === folder) continue;
        counts.set(folderOf(edge.to), (counts.get(folderOf(edge.to)) ?? 0) + 1);
      }
      const files = structure.files.filter((file) => folderOf(file) === folder).length;
      if (files === 0) continue;
      const targets = [...counts].sort((a, b) => floorOf(b[0]) - floorOf(a[0]) || a[0].localeCompare(b[0])).map(([to, n]) => `${to} ${n}`);
      lines.push(`${String(floor).padStart(2)}  ${folder.padEnd(14)} ${String(files).padStart(3)} files  -> ${targets.join(', ') || '(nothing)'}`);
    }
  }
  lines.push('', `circles: ${structure.circles.length === 0 ? 'none' : ''}`);
  for (const circle of structure.circles) lines.push(`  ${circle.join(' <-> ')}`);
  lines.push(`imports up a floor: ${structure.upward.length === 0 ? 'none' : ''}`);
  for (const edge of structure.upward) lines.push(`  ${edge.from} -> ${edge.to}`);
  if (structure.unplaced.length > 0) lines.push(`folders on no floor: ${structure.unplaced.join(', ')}`);
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const structure = readStructure();
  console.log(drawStructure(structure));
  if (structure.circles.length > 0 || structure.upward.length > 0 || structure.unplaced.length > 0) process.exitCode = 1;
}
