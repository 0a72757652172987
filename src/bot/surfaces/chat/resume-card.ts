import { mayOverrideChecklist } from "../../../policy/access";
import { type CheckItem, checklistFails } from "../../../policy/resume-checklist";
import type { PreflightResult } from "../../app/control/preflight";
import type { Card, CardButton, CredentialCheck } from "./types";
import { forecastLine, heldLines, TENANT_HOLD_WORDS, when } from "./words";

type Ready = Extract<PreflightResult, { kind: "ready" }>;

/** The preflight card (design.md section 4): what a resume releases, and who is resuming. */
export function preflightCard(
  preflight: Ready,
  credentials: CredentialCheck,
  tokens: { confirm: string; override: string; cancel: string },
): Card {
  const c = preflight.control;
  // Confirm stays on the card when a check fails: it is refused with the checklist (the resume decides).
  const buttons: CardButton[] = [
    { label: "Confirm resume", action: "resume.confirm", token: tokens.confirm, style: "primary" },
    ...(checklistFails(preflight.checklist) && mayOverrideChecklist(preflight.resumer.role)
      ? [
          {
            label: "Resume anyway",
            action: "resume.override" as const,
            token: tokens.override,
            style: "danger" as const,
          },
        ]
      : []),
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
      ...checklistLines(preflight.checklist),
    ],
    fields: [
      { label: "Resuming", value: `${preflight.resumer.name} (${preflight.resumer.role})` },
      { label: "Platform credentials", value: `${credentials.ok ? "ok" : "FAILING"}: ${credentials.detail}` },
    ],
    buttons,
  };
}

const MARK = { ok: "[ok]", warn: "[warn]", fail: "[FAIL]" } as const;

/** One line per check, in the checklist's order, each with its mark and its plain words. */
export const checklistLines = (checklist: readonly CheckItem[]): string[] => [
  "Resume checklist:",
  ...checklist.map((c) => `${MARK[c.status]} ${c.check}: ${c.detail}`),
];

/** A card whose checklist was judged again (at Confirm): the new lines in place of the ones shown. */
export function withChecklist(card: Card, checklist: readonly CheckItem[]): Card {
  const at = card.lines.indexOf("Resume checklist:");
  const kept = at < 0 ? card.lines : card.lines.slice(0, at);
  return { ...card, lines: [...kept, ...checklistLines(checklist)] };
}

/** The same card once settled: no buttons, a footer saying what happened. */
export const settledCard = (card: Card, footer: string): Card => ({ ...card, buttons: [], footer });
