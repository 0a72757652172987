import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Eta } from "eta";
import { visibleText } from "../../../policy/visible-text";
import type {
  AgentPage,
  ApprovalsPage,
  DemoReceiverPage,
  ErrorPage,
  EscalationsPage,
  Frame,
  OverviewPage,
  ReviewPage,
  SignInPage,
} from "./views";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TEMPLATES = path.join(HERE, "templates");

/**
 * Eta escapes every `<%= %>` (autoEscape); nothing in the templates prints raw text but the layout's body.
 * Invisible characters are shown first, as on every chat platform's card.
 */
const eta = new Eta({ views: TEMPLATES, autoEscape: true, cache: true });
const escapeHtml = eta.config.escapeFunction;
eta.configure({ escapeFunction: (value: unknown) => escapeHtml(visibleText(String(value))) });

interface Pages {
  overview: OverviewPage;
  agent: AgentPage;
  approvals: ApprovalsPage;
  review: ReviewPage;
  escalations: EscalationsPage;
  "sign-in": SignInPage;
  "demo-receiver": DemoReceiverPage;
  error: ErrorPage;
}

export type PageName = keyof Pages;

export function renderPage<P extends PageName>(name: P, frame: Frame, page: Pages[P]): string {
  return eta.render(`./${name}`, { frame, page });
}

const ASSETS: Record<string, string> = {
  "console.css": "text/css; charset=utf-8",
  "console.js": "text/javascript; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

/** The console's stylesheet and script, or null for any other name. */
export function consoleAsset(name: string): { type: string; body: string } | null {
  const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  return type ? { type, body: fs.readFileSync(path.join(HERE, "assets", name), "utf8") } : null;
}
