// A preload for `npm run bench:load` (LOAD_MEMORY_DIR): every 5 s each thread of a bot process (the main
// thread, the tick thread, the delivery thread) appends its V8 heap figures to <dir>/<pid>.jsonl, and the main
// thread adds its resident memory by kind from /proc/self/smaps. It shows where a process's memory goes under
// load, which its RSS alone does not: a heap snapshot sees only what is live on one thread.
import fs from "node:fs";
import v8 from "node:v8";
import { isMainThread, threadId } from "node:worker_threads";

const file = `${process.env.LOAD_MEMORY_DIR}/${process.pid}.jsonl`;
const MiB = (bytes) => Math.round(bytes / 1048576);

/** glibc's arenas beside the main one (the threads' malloc) are mappings of up to 64 MiB aligned to 64 MiB. */
const ARENA_ALIGN = 64n * 1048576n;

/**
 * Resident MiB of the malloc heap (`heap`: `[heap]`, the main arena), of the other malloc arenas (`arenas`), of
 * the remaining anonymous mappings (V8's heaps among them) and of files.
 */
function residentByKind() {
  const out = { heap: 0, arenas: 0, anon: 0, file: 0 };
  let kind = "anon";
  for (const line of fs.readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
    if (mapping) {
      const name = line.trim().split(/\s+/)[5] ?? "";
      const start = BigInt(`0x${mapping[1]}`);
      const size = BigInt(`0x${mapping[2]}`) - start;
      const arena = !name && mapping[3] === "rw-p" && start % ARENA_ALIGN === 0n && size >= 1048576n;
      kind = name === "[heap]" ? "heap" : name.startsWith("/") ? "file" : arena ? "arenas" : "anon";
    } else if (line.startsWith("Rss:")) out[kind] += Number(line.replace(/\D+/g, "")) / 1024;
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Math.round(v)]));
}

setInterval(() => {
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, MiB(s.space_size)]));
  const row = {
    t: Date.now(),
    thread: isMainThread ? "main" : threadId,
    rss: MiB(usage.rss),
    heapTotal: MiB(usage.heapTotal),
    heapUsed: MiB(usage.heapUsed),
    external: MiB(usage.external),
    newSpace: spaces.new_space,
    oldSpace: spaces.old_space,
    ...(isMainThread ? { resident: residentByKind() } : {}),
  };
  fs.appendFileSync(file, `${JSON.stringify(row)}\n`);
}, 5_000).unref();
