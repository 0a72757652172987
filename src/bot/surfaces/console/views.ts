// What the console's pages are drawn from. The bot fills these with words already chosen (the same words as
// chat); the templates only lay them out and escape them.
import type { Card } from "../chat/types";

export type Section = "overview" | "approvals" | "review" | "escalations" | "agent" | "sign-in" | "demo";

export interface Note {
  kind: "ok" | "refused";
  text: string;
}

export interface Frame {
  title: string;
  section: Section;
  /** The page's own address (a form's answer is drawn at the form's URL; live updates reload this one). */
  path: string;
  /** The signed-in person, or null on the sign-in page. */
  user: { name: string; tenant: string } | null;
  /** The session's CSRF token: every form carries it. */
  csrf: string;
  notes: Note[];
}

export interface AgentRow {
  name: string;
  state: string;
  /** Who holds it and why, in chat's words; "" when running. */
  hold: string;
  held: Array<{ label: string; count: number }>;
}

export interface ApprovalRow {
  id: string;
  agent: string;
  operation: string;
  reviewers: string;
  deadline: string;
}

export interface OverviewPage {
  agents: AgentRow[];
  waiting: ApprovalRow[];
  needsReview: number;
  /** What is escalating to the signed-in person: open and acknowledged escalations. */
  escalations: Array<{
    id: string;
    what: string;
    level: number;
    since: string;
    notified: string;
    acknowledged: string;
  }>;
  /** Maintenance windows in force and unclean stops of the last day, as /status says them. */
  maintenance: string[];
}

export interface EscalationRow {
  id: string;
  kind: "approval" | "paused" | "review" | "delivery";
  title: string;
  /** What waits, in the ping's words. */
  what: string;
  since: string;
  onWhom: string;
  level: number;
  state: string;
  acknowledged: string;
  fields: Array<{ label: string; value: string }>;
  /** The item's own page (the run on /approvals, the agent, /review); "" when it is gone. */
  openPath: string;
  /** Every ping so far: when and to whom, and where it was posted. */
  pings: Array<{ sent: string; where: string }>;
  canAcknowledge: boolean;
  canTakeOver: boolean;
}

export interface EscalationsPage {
  items: EscalationRow[];
}

export interface TriggerRow {
  key: string;
  cadence: string;
  destination: string;
  misfire: string;
  nextDue: string;
  lastDue: string;
  /** "held ×3" while occurrences of this trigger wait for a resume; "" otherwise. */
  held: string;
}

export interface ChatLine {
  author: string;
  fromAgent: boolean;
  text: string;
  at: string;
}

export interface AuditRow {
  at: string;
  action: string;
  actor: string;
  outcome: string;
  reason: string;
}

export interface AgentPage {
  agent: string;
  paused: boolean;
  statusLines: string[];
  heldLines: string[];
  triggers: TriggerRow[];
  /** The resume preflight card, once asked for, with Confirm and Cancel. */
  card: Card | null;
  chat: ChatLine[];
  /** The agent's audited acts, newest first (pauses, resumes and refusals, decisions, reconciles). */
  audit: AuditRow[];
}

export interface ApprovalDetail {
  id: string;
  agent: string;
  operation: string;
  destination: string;
  state: string;
  version: number;
  digest: string;
  deadline: string;
  timeLeft: string;
  /** Null when the signed-in person does not see this run's packet (they see its digest). */
  packet: string | null;
  evidence: string | null;
  reviewers: string;
  /** Present when the signed-in person may decide now: the form's binding. */
  decide: { version: number; digest: string; eventId: string } | null;
  /** Who decided, and when (settled runs). */
  footer: string;
}

export interface ApprovalsPage {
  waiting: ApprovalDetail[];
  settled: ApprovalDetail[];
}

export interface ReviewItem {
  key: string;
  agent: string;
  /** The approved run's packet and evidence (null: hidden from this reader); null itself: no approved run. */
  packet: { packet: string | null; evidence: string | null } | null;
  intended: { digest: string; run: string; approvedBy: string };
  known: { lastAttemptAt: string; lastResult: string; destination: string; actionKey: string; attempts: number };
  next: Array<{ resolution: string; label: string; words: string }>;
  canReconcile: boolean;
}

export interface ReviewPage {
  items: ReviewItem[];
}

export interface SignInPage {
  demoHint: string | null;
  /** A one-time link's token: the page asks for one click (a POST), so a link preview cannot use it up. */
  link?: string;
}

export interface DemoReceiverPage {
  received: Array<{ at: string; summary: string; body: string }>;
}

export interface ErrorPage {
  status: number;
  message: string;
}
