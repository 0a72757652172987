import type { PreflightResult } from "../../app/control/preflight";
import type { Card, CardButton, CredentialCheck } from "./types";
import { forecastLine, heldLines, TENANT_HOLD_WORDS, when } from "./words";

type Ready = Extract<PreflightResult, { kind: "ready" }>;

/** The preflight card (design.md section 4): what a resume releases, and who is resuming. */
export function preflightCard(
  preflight: Ready,
  credentials: CredentialCheck,
  tokens: { confirm: string; cancel: string },
): Card {
  const c = preflight.control;
  const buttons: CardButton[] = [
    { label: "Confirm resume", action: "resume.confirm", token: tokens.confirm, style: "primary" },
    { label: "Cancel", action: "resume.cancel", token: tokens.cancel, style: "default" },
  ];
  return {
    title: `Resume ${c.agent}?`,
    lines: [
      `Paused by ${c.setBy} since ${when(c.setAt)} (${c.holdLevel} hold): ${c.reason}`,
      ...heldLines(preflight.held),
      forecastLine(preflight.forecast, preflight.held),
      ...(c.effective.by === "tenant"
        ? [`${c.agent} stays ${TENANT_HOLD_WORDS} until an admin resumes the tenant.`]
        : []),
    ],
    fields: [
      { label: "Resuming", value: `${preflight.resumer.name} (${preflight.resumer.role})` },
      { label: "Platform credentials", value: `${credentials.ok ? "ok" : "FAILING"}: ${credentials.detail}` },
    ],
    buttons,
  };
}

/** The same card once settled: no buttons, a footer saying what happened. */
export const settledCard = (card: Card, footer: string): Card => ({ ...card, buttons: [], footer });
