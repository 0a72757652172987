import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

// design.md section 2: adapters hold no business rules. They may import their platform's library, files of
// their own folder, and the neutral chat types; never the store, the queue, policy or handlers.

const ADAPTERS = path.resolve("src/adapters");
const ALLOWED_RELATIVE = /^(\.\/[\w-]+|\.\.\/\.\.\/bot\/chat\/types)$/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith(".ts") ? [full] : [];
  });
}

test("adapters import only their library, their own folder and the neutral chat types", () => {
  const files = sourceFiles(ADAPTERS);
  expect(files.length).toBeGreaterThan(0);
  const offending: string[] = [];
  for (const file of files) {
    const source = fs.readFileSync(file, "utf8");
    for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
      const relative = specifier!.startsWith(".");
      if (relative && !ALLOWED_RELATIVE.test(specifier!))
        offending.push(`${path.relative(ADAPTERS, file)}: ${specifier}`);
    }
  }
  expect(offending).toEqual([]);
});
