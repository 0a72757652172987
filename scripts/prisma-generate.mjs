// Generates both Prisma clients when the schema changed since the last generation (offline-safe).
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { schemas } from "../src/store/schema-engine/migration-files.mjs";

// The CLI would otherwise try to download a native schema engine; this stand-in keeps it offline.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.resolve("scripts/schema-engine-shim.mjs");
const outRoot = path.resolve("src/store/generated");
for (const [provider, schemaPath] of Object.entries(schemas)) {
  const text = fs.readFileSync(schemaPath, "utf8");
  const stamp = path.join(outRoot, `${provider}.sha256`);
  const hash = crypto.createHash("sha256").update(text).digest("hex");
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === hash) continue;
  execFileSync("npx", ["prisma", "generate", "--schema", schemaPath], { stdio: ["ignore", "ignore", "inherit"] });
  fs.writeFileSync(stamp, hash);
  console.log(`prisma client (${provider}) generated`);
}
