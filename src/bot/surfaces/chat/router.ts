import { findNul } from "../../../policy/limits";
import { pendingApprovals } from "../../app/approvals/approvals";
import { type ConversationPoster, forwardToAgent, postConversationEvent } from "../../app/chat/conversation";
import { identifyClicker } from "../../app/chat/identify";
import type { HandlerContext } from "../../app/context";
import { pauseAgent } from "../../app/control/pause";
import { agentStatus } from "../../app/control/status";
import { listEscalations } from "../../app/escalation/escalations";
import { maintenanceSummary } from "../../app/maintenance/windows";
import type { KnownUser } from "../../app/records";
import { clickEventId, decideFromChat } from "./approval-flow";
import { escalationFromChat } from "./escalation-flow";
import { identify, namedAgent, type Targeted, targetAgent } from "./guards";
import { maintenanceFromChat, maintenanceLines } from "./maintenance-flow";
import { parsePauseArgs } from "./pause-args";
import { type ChatRefusal, refusalText } from "./refusals";
import { finishResume, startResume } from "./resume-flow";
import type { ChatCommand, ChatRouter, ChatTransport, Reply } from "./types";
import { approvalsText, consoleLinkText, escalationsText, pauseText, statusText } from "./words";
import { createWorkQueue } from "./work-queue";

export interface ChatRouterOptions {
  ctx: HandlerContext;
  /** How messages reach an agent's conversation destination; HTTP POST by default. */
  postConversation?: ConversationPoster;
  /** Approval decisions in flight at once (see work-queue.ts). Default 2. */
  decisionConcurrency?: number;
  /** Makes a one-time console sign-in link for `/console`; absent: the console is not served. */
  consoleLink?: (user: KnownUser) => Promise<string>;
}

const say = (text: string, ephemeral: boolean): Reply => ({ kind: "text", text, ephemeral });
const refusalReply = (refusal: ChatRefusal, via: ChatTransport): Reply => say(refusalText(refusal, via.platform), true);

/** A command about the caller alone (no agent to choose), or null when the command names an agent. */
async function callerCommand(
  options: ChatRouterOptions,
  cmd: ChatCommand,
  user: KnownUser,
  via: ChatTransport,
): Promise<Reply | null> {
  const { ctx } = options;
  switch (cmd.name) {
    case "approvals":
      return say(approvalsText(await pendingApprovals(ctx, user)), true);
    case "console":
      if (!options.consoleLink) return refusalReply({ code: "no_console" }, via);
      return say(consoleLinkText(await options.consoleLink(user)), true);
    case "escalations": {
      const page = await listEscalations(ctx, user, { states: ["open", "acknowledged"], limit: 20 });
      return say(escalationsText(page.items), true);
    }
    case "maintenance":
      return say(await maintenanceFromChat(ctx, user, cmd.text), false);
    default:
      return null;
  }
}

/** A command about one agent, once the agent is chosen from the text. */
async function agentCommand(
  ctx: HandlerContext,
  cmd: ChatCommand,
  target: Targeted,
  via: ChatTransport,
): Promise<Reply> {
  const { user, agent, rest } = target;
  switch (cmd.name) {
    case "pause": {
      const args = parsePauseArgs(rest, ctx.now());
      if (!args.ok) return refusalReply({ code: args.code, agent: agent.name }, via);
      const result = await pauseAgent(ctx, { user, agent, reason: args.reason, until: args.until });
      // A pause concerns everyone in the channel, so it is said out loud.
      return say(pauseText(result, user.name), false);
    }
    case "resume": {
      const started = await startResume(ctx, user, agent, via);
      return "card" in started ? { kind: "card", card: started.card } : refusalReply(started.refusal, via);
    }
    default: {
      // status
      const [status, maintenance] = await Promise.all([agentStatus(ctx, agent), maintenanceSummary(ctx)]);
      return say([statusText(status), ...maintenanceLines(maintenance)].join("\n"), true);
    }
  }
}

/** The router, and what the composition root alone needs of it. */
export interface RoutingChat extends ChatRouter {
  /** Resolves once no click's decision is waiting or running in this process (at once when none is). */
  decisionsIdle(): Promise<void>;
}

/** The one entry for every platform: identify the caller, pick the agent, call the shared handlers. */
export function createChatRouter(options: ChatRouterOptions): RoutingChat {
  const { ctx } = options;
  const post = options.postConversation ?? postConversationEvent;
  const decisions = createWorkQueue({ concurrency: options.decisionConcurrency });

  async function command(cmd: ChatCommand, via: ChatTransport): Promise<Reply> {
    // PostgreSQL cannot store NUL in text; refused here like the API refuses it at validation.
    if (findNul(cmd)) return refusalReply({ code: "unreadable_text" }, via);
    const caller = await identify(ctx, cmd.actor);
    if (!caller.ok) return refusalReply(caller.refusal, via);
    const own = await callerCommand(options, cmd, caller.value, via);
    if (own) return own;
    const target = await targetAgent(ctx, { user: caller.value, text: cmd.text });
    return target.ok ? agentCommand(ctx, cmd, target.value, via) : refusalReply(target.refusal, via);
  }

  return {
    decisionsIdle: () => decisions.idle(),

    async command(cmd, via) {
      return command(cmd, via);
    },

    async interaction(click, via) {
      if (findNul(click)) return { note: refusalText({ code: "unreadable_text" }, via.platform) };
      if (click.action === "run.approve" || click.action === "run.deny") {
        // Queued as a whole, identification included: every database read waits behind pending acks. The
        // caller, the clicked button and its run's decision facts are one read.
        return decisions.run(async () => {
          const read = await identifyClicker(ctx, click.actor, { token: click.token, eventId: clickEventId(click) });
          return read.caller.ok
            ? decideFromChat(ctx, read.caller.user, click, read)
            : { note: refusalText({ code: read.caller.code }, via.platform) };
        });
      }
      const caller = await identify(ctx, click.actor);
      if (!caller.ok) return { note: refusalText(caller.refusal, via.platform) };
      if (click.action === "escalation.ack" || click.action === "escalation.takeover")
        return escalationFromChat(ctx, caller.value, click);
      const outcome = await finishResume(ctx, caller.value, click, via);
      if (!("refusal" in outcome)) return outcome;
      const note = refusalText(outcome.refusal, via.platform);
      return outcome.card ? { note, card: outcome.card } : { note };
    },

    async message(message, via) {
      if (findNul(message)) return refusalReply({ code: "unreadable_text" }, via);
      const caller = await identify(ctx, message.actor);
      if (!caller.ok) return refusalReply(caller.refusal, via);
      const target = message.agentName
        ? await namedAgent(ctx, caller.value, message.agentName)
        : await targetAgent(ctx, { user: caller.value, text: message.text });
      if (!target.ok) return refusalReply(target.refusal, via);
      // The agent gets the whole message; the name only chose where it goes.
      const refusal = await forwardToAgent(ctx, post, { ...target.value, text: message.text }, message);
      return refusal ? refusalReply(refusal, via) : null;
    },
  };
}
