import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { readImportGraph } from "./import-graph";

// docs/maintainers.md "Size budget": a file over 300 lines is split by concept, and no function runs past 80
// lines (the generated Prisma clients are left out, as everywhere).
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;

const files = readImportGraph(path.resolve(".")).files;

const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

/** Every function-like node (declarations, methods, arrows, function expressions) longer than the budget. */
function longFunctions(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const long: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > MAX_FUNCTION_LINES) long.push(`${file}:${start + 1} (${end - start + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

test(`no source file over ${MAX_FILE_LINES} lines`, () => {
  const big = files
    .map((file) => ({ file, lines: lineCount(fs.readFileSync(file, "utf8")) }))
    .filter(({ lines }) => lines > MAX_FILE_LINES);
  expect(big).toEqual([]);
});

test(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
  expect(files.flatMap(longFunctions)).toEqual([]);
});
