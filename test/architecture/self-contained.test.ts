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
