// Generates both Prisma clients when the schema changed since the last generation (offline-safe).
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { schemas } from "../src/store/schema-engine/migration-files.mjs";

// The CLI would otherwise try to download a native schema engine; this stand-in keeps it offline.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.resolve("scripts/schema-engine-shim.mjs");
const outRoot = path.resolve("src/store/generated");
// Part of the stamp: a change to what this script does to the generated client regenerates it.
const POSTPROCESS = "query-compiler-wasm-file-1";
for (const [provider, schemaPath] of Object.entries(schemas)) {
  const text = fs.readFileSync(schemaPath, "utf8");
  const stamp = path.join(outRoot, `${provider}.sha256`);
  const hash = crypto.createHash("sha256").update(text).update(POSTPROCESS).digest("hex");
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === hash) continue;
  execFileSync("npx", ["prisma", "generate", "--schema", schemaPath], { stdio: ["ignore", "ignore", "inherit"] });
  await queryCompilerFromFile(path.join(outRoot, provider, "internal", "class.ts"));
  fs.writeFileSync(stamp, hash);
  console.log(`prisma client (${provider}) generated`);
}

/**
 * The generated client imports its query compiler as a module holding the WebAssembly as one base64 string,
 * which stays in the heap for the process's life, twice (the module's source and the string): 4.2 MB of an idle
 * bot's 45 MB heap. Written out as a .wasm file beside the client and read from there, it is compiled and gone.
 */
async function queryCompilerFromFile(classFile) {
  const source = fs.readFileSync(classFile, "utf8");
  const loader =
    /getQueryCompilerWasmModule: async \(\) => \{\n\s*const \{ wasm \} = await import\("([^"]+)"\)\n\s*return await decodeBase64AsWasm\(wasm\)\n\s*\}/;
  const found = loader.exec(source);
  if (!found) throw new Error(`${classFile}: the query compiler's loader is not where this script expects it`);
  const { wasm } = await import(found[1]);
  fs.writeFileSync(path.join(path.dirname(classFile), "query_compiler.wasm"), Buffer.from(wasm, "base64"));
  const fromFile = `getQueryCompilerWasmModule: async () => {
    const { readFile } = await import("node:fs/promises")
    return await WebAssembly.compile(await readFile(new URL("./query_compiler.wasm", import.meta.url)))
  }`;
  fs.writeFileSync(classFile, source.replace(found[0], fromFile));
}
