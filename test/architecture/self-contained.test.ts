import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { expect, test } from "vitest";

// The project documents itself: a clone has no sibling folders, so nothing in it may point outside it.
const OUTSIDE = ["..", "shared"].join("/");

test("no tracked file points at a folder outside the checkout", () => {
  const files = execFileSync("git", ["ls-files"], { encoding: "utf8" }).split("\n").filter(Boolean);
  expect(files.length).toBeGreaterThan(100);
  const pointing = files.filter((file) => {
    if (!fs.existsSync(file) || /\.(png|jpg|wasm|db)$/.test(file)) return false;
    return fs.readFileSync(file, "utf8").includes(OUTSIDE);
  });
  expect(pointing).toEqual([]);
});

test("the README's quick start and its links to docs/ hold", () => {
  const readme = fs.readFileSync("README.md", "utf8");
  expect(readme).toContain("npm ci && npm start");
  for (const [, target] of readme.matchAll(/\]\((docs\/[^)#]+)\)/g)) expect(fs.existsSync(target!), target).toBe(true);
});

test("every source path the README and docs/ name exists, so the docs follow the tree when it moves", () => {
  const docs = [
    "README.md",
    ...fs
      .readdirSync("docs")
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  const missing: string[] = [];
  for (const doc of docs) {
    const text = fs.readFileSync(doc, "utf8");
    for (const [, named] of text.matchAll(/`((?:src|test|bench|scripts|prisma)\/[\w./{},*-]+?)(?::\d+)?`/g)) {
      // A brace list (`src/x/{a,b}.ts`) names each of its files; a glob or a folder with a slash is checked as a folder.
      const expanded = named!.includes("{")
        ? named!.replace(/\{([^}]*)\}/, "\u0000$1\u0000").split("\u0000")
        : [named!, "", ""];
      const [head, list, tail] = expanded;
      const paths = list ? list.split(",").map((part) => `${head}${part}${tail}`) : [head!];
      for (const p of paths) if (!p.includes("*") && !fs.existsSync(p.replace(/\/$/, ""))) missing.push(`${doc}: ${p}`);
    }
  }
  expect(missing).toEqual([]);
});
