import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { importCycles, readImportGraph } from "./import-graph";

// docs/maintainers.md "Layers": the direction of imports is the architecture. Each layer names the layers it
// may import (its own folder always); anything else is a broken arrow. The graph is read from the real files,
// so a new file cannot slip past.
const LAYERS: Array<{ layer: string; folder: string; mayImport: string[] }> = [
  { layer: "policy", folder: "src/policy/", mayImport: [] },
  { layer: "store", folder: "src/store/", mayImport: ["policy"] },
  { layer: "queue", folder: "src/queue/", mayImport: ["policy", "store"] },
  { layer: "app", folder: "src/bot/app/", mayImport: ["policy", "store", "queue"] },
  { layer: "surfaces", folder: "src/bot/surfaces/", mayImport: ["policy", "app"] },
  { layer: "adapters", folder: "src/adapters/", mayImport: ["chat seam"] },
  { layer: "main", folder: "src/bot/main/", mayImport: ["policy", "store", "queue", "app", "surfaces", "adapters"] },
];
// The one file adapters may import: the neutral chat types (events in, cards out).
const CHAT_SEAM = "src/bot/surfaces/chat/types.ts";

const layerOf = (file: string) => LAYERS.find((layer) => file.startsWith(layer.folder))?.layer ?? "outside";

/** Each import that its layer may not make, as `from -> to`. */
function brokenArrows(graph: ReturnType<typeof readImportGraph>): string[] {
  const broken: string[] = [];
  for (const [file, targets] of graph.imports) {
    const from = LAYERS.find((layer) => file.startsWith(layer.folder));
    for (const target of targets) {
      const to = layerOf(target);
      const allowed =
        !from ||
        to === from.layer ||
        from.mayImport.includes(to) ||
        (from.mayImport.includes("chat seam") && target === CHAT_SEAM);
      if (!allowed) broken.push(`${file} (${from?.layer}) -> ${target} (${to})`);
    }
  }
  return broken;
}

describe("layers", () => {
  const graph = readImportGraph(path.resolve("."));

  test("every source file belongs to a layer", () => {
    expect(graph.files.length).toBeGreaterThan(100);
    expect(graph.files.filter((file) => layerOf(file) === "outside")).toEqual([]);
  });

  test("every import goes to a layer that may be imported", () => {
    expect(brokenArrows(graph)).toEqual([]);
  });

  test("an import of the store from a surface is a broken arrow", () => {
    const surface = "src/bot/surfaces/http/server.ts";
    const withStore = new Map(graph.imports).set(surface, ["src/store/index.ts"]);
    expect(brokenArrows({ files: graph.files, imports: withStore })).toContain(
      `${surface} (surfaces) -> src/store/index.ts (store)`,
    );
  });

  test("no surface reaches the store through the context either (it calls a use case)", () => {
    const reaching = graph.files
      .filter((file) => layerOf(file) === "surfaces")
      .filter((file) => /\.store\.(db|sql)\b|\{ db \} = ctx\.store/.test(fs.readFileSync(file, "utf8")));
    expect(reaching).toEqual([]);
  });

  test("no import cycle", () => {
    expect(importCycles(graph)).toEqual([]);
  });
});
