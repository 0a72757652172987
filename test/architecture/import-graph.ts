import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** Every source file under `src` (generated Prisma clients left out) with the files of ours it imports. */
export interface ImportGraph {
  files: string[];
  imports: Map<string, string[]>;
}

const SOURCE = /\.(ts|mts|mjs)$/;
const RESOLVE = ["", ".ts", ".mts", ".mjs", "/index.ts"];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(full);
    return SOURCE.test(entry.name) && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

function resolve(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  for (const ending of RESOLVE) {
    const candidate = base + ending;
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Reads the real imports (static, type-only, re-exports and dynamic `import()`) with TypeScript's own scanner. */
export function readImportGraph(root: string): ImportGraph {
  const src = path.join(root, "src");
  const files = sourceFiles(src);
  const imports = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true);
    const targets = info.importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolve(file, specifier) ?? `${path.resolve(path.dirname(file), specifier)} (missing)`);
    imports.set(path.relative(root, file), [...new Set(targets.map((target) => path.relative(root, target)))]);
  }
  return { files: files.map((file) => path.relative(root, file)), imports };
}

/** The import cycles of the graph (Tarjan's strongly connected components of more than one file, or a self-import). */
export function importCycles(graph: ImportGraph): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    indexOf.set(file, index);
    low.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.imports.get(file) ?? []) {
      if (!graph.imports.has(next)) continue;
      if (!indexOf.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, indexOf.get(next)!));
    }
    if (low.get(file) !== indexOf.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.imports.get(file)?.includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.files) if (!indexOf.has(file)) visit(file);
  return cycles;
}
