import { execFileSync } from "node:child_process";
import { prepareTemplates } from "./databases";

export default async function setup(): Promise<void> {
  execFileSync(process.execPath, ["scripts/prisma-generate.mjs"], { stdio: "inherit" });
  await prepareTemplates();
}
