import { z } from "zod";
import { selfStatus } from "../../app/control/self-status";
import { recordCheckpoint } from "../../app/held/record-checkpoint";
import { registerTrigger, triggerPageOf } from "../../app/held/triggers";
import { ApiError } from "../http/errors";
import { StateDelta } from "../http/event-routes";
import { decodeCursor, pageAnswer } from "../http/paging";
import { ListQuery, TriggerBody, triggerInputOf } from "../http/trigger-routes";
import { defineTool } from "./tool";

export const getStatus = defineTool({
  name: "get_status",
  title: "Am I paused?",
  description:
    "The agent's effective state (state, holdLevel, by, reason, until), whether its outbound work is held now " +
    "(held: true while it or its tenant is paused), and its held counts. Ask before each step that acts.",
  schema: z.object({}).strict(),
  readOnly: true,
  async run({ ctx, agent }) {
    const status = await selfStatus(ctx, agent);
    const why = status.reason ? `: ${status.reason}` : "";
    const text = status.held
      ? `${agent.name} is ${status.state} (${status.holdLevel} hold by ${status.by}${why}); its outbound work is held`
      : `${agent.name} is ${status.state}; its outbound work runs`;
    return { structured: { ...status }, text };
  },
});

export const recordCheckpointTool = defineTool({
  name: "record_checkpoint",
  title: "Record a checkpoint",
  description:
    "Move one of the agent's runs to its next named checkpoint (the sequence declared in config), merging `set` " +
    "into its variables: the same state delta an event's stateDelta carries. A new run starts at the first one.",
  schema: StateDelta,
  async run({ ctx, agent }, delta) {
    const result = await recordCheckpoint(ctx, agent, delta);
    if (result.kind === "invalid_transition") throw new ApiError("invalid_transition", result.why, "checkpoint");
    return { structured: result.run, text: `run ${result.run.id} is at ${result.run.checkpoint}` };
  },
});

export const registerTriggerTool = defineTool({
  name: "register_trigger",
  title: "Register a trigger",
  description:
    "Register (or replace) a cadence trigger, as POST /v1/agents/:agent/triggers: `every` or `cron`, posting to one " +
    "of the agent's declared destinations under its configured contract. Held while the agent is paused.",
  schema: TriggerBody,
  async run({ ctx, agent }, body) {
    const result = await registerTrigger(ctx, agent, triggerInputOf(body));
    if (result.kind === "invalid")
      throw new ApiError("invalid_body", `${result.field}: ${result.message}`, result.field);
    if (result.kind === "quota_exceeded") throw new ApiError("quota_exceeded", result.message);
    return { structured: { ...result.trigger }, text: `trigger ${body.key} next fires at ${result.trigger.nextDueAt}` };
  },
});

export const listTriggers = defineTool({
  name: "list_triggers",
  title: "List triggers",
  description: "The agent's triggers by key, a page at a time (`{ items, nextCursor }`, as the trigger list route).",
  schema: ListQuery,
  readOnly: true,
  async run({ ctx, agent }, query) {
    const page = await triggerPageOf(ctx, agent, query.limit, decodeCursor(z.string(), query.cursor));
    const answer = pageAnswer(page.items, page.next);
    return { structured: answer, text: `${answer.items.length} trigger(s)${answer.nextCursor ? ", more follow" : ""}` };
  },
});
