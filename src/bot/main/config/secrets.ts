import fs from "node:fs";

/** Reads a secret from `NAME` or from the file named by `NAME_FILE`. */
export function secretFromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const inline = env[name];
  if (inline) return inline;
  const file = env[`${name}_FILE`];
  return file ? fs.readFileSync(file, "utf8").trim() : undefined;
}
