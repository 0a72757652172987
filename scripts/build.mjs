// Builds the bot to dist/ as ES modules (what `npm start` runs), so production runs plain JavaScript: the
// TypeScript loader (tsx) cost about a third of an idle bot's memory and a second of its start. Packages stay
// external (native modules, wasm and the workers' own imports load from node_modules as before).
// Skipped when dist/ is newer than every source file, so `npm start` pays for a build only after a change.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "dist");
const outfile = path.join(outdir, "main.mjs");
const inputs = [path.join(root, "src"), path.join(root, "package.json"), fileURLToPath(import.meta.url)];

function newestChange(entry) {
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestChange(path.join(entry, name)));
  return newest;
}

const isStale = () => {
  const built = fs.existsSync(outfile) ? fs.statSync(outfile).mtimeMs : 0;
  return Math.max(...inputs.map(newestChange)) >= built;
};

/**
 * Several `npm start`s of one checkout may run at once (two processes on one machine, a test suite): one builds
 * at a time (a lock directory; one left by a killed build is taken over after a minute), the next finds the
 * build fresh, and a build lands file by file with renames, the entry last, so a process starting meanwhile reads
 * either the old build or the new one, never a half-written or a deleted file.
 */
async function withBuildLock(work) {
  const lock = path.join(root, "dist.lock");
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 60_000) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

const force = process.argv.includes("--force");
await withBuildLock(async () => {
  if (!force && !isStale()) return;
  // Beside dist/, at the same depth, so the relative source URLs below hold for both.
  const staging = fs.mkdtempSync(path.join(root, ".dist-build-"));
  try {
    await build({
      entryPoints: [path.join(root, "src/bot/main/main.ts")],
      outdir: staging,
      outExtension: { ".js": ".mjs" },
      // Lazily imported modules (the chat adapters) become chunks of their own, so their packages load only then.
      splitting: true,
      chunkNames: "[name]-[hash]",
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      sourcemap: "linked",
      logLevel: "warning",
      plugins: [sourceLocatedUrls()],
    });
    fs.mkdirSync(outdir, { recursive: true });
    // Chunks carry their content's hash in their names, so an earlier build's stay valid for a process still
    // running from it (a lazily loaded adapter); the entry, which names the chunks it needs, goes last.
    const files = fs.readdirSync(staging).sort((a, b) => Number(a.startsWith("main.")) - Number(b.startsWith("main.")));
    for (const name of files) fs.renameSync(path.join(staging, name), path.join(outdir, name));
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
});

/**
 * One bundle has one `import.meta.url`, but a few modules find files next to themselves (the worker threads'
 * scripts, the console's templates, package.json, the schema engine): each module's `import.meta.url` is
 * rewritten to the URL of its own source file, relative to dist/ (every chunk is there), so a moved checkout still works.
 */
function sourceLocatedUrls() {
  return {
    name: "source-located-urls",
    setup(context) {
      context.onLoad({ filter: /\.(ts|mjs)$/ }, async (args) => {
        const text = await fs.promises.readFile(args.path, "utf8");
        if (!text.includes("import.meta.url")) return undefined;
        const fromBundle = path.relative(path.dirname(outfile), args.path).split(path.sep).join("/");
        const located = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
        return {
          contents: text.replaceAll("import.meta.url", located),
          loader: args.path.endsWith(".ts") ? "ts" : "js",
        };
      });
    },
  };
}
