import { agentNameOf } from "../../../policy/ids";
import { describeCounts, type UncleanReport } from "../../app/maintenance/unclean";
import type { Card } from "./types";

/** The one chat message principals get after an unclean stop that touched their agents' work. */
export const uncleanStopCard = (report: UncleanReport): Card => ({
  title: `Holdfast process ${report.instance} stopped uncleanly`,
  lines: [
    `Its work in flight was classified by ${report.by}: ${describeCounts(report.counts)}.`,
    "Items that need review are in the review queue (/review), with their digest, destination, key and last attempt.",
  ],
  fields: [{ label: "Agents", value: report.agents.map(agentNameOf).join(", ") }],
  buttons: [],
});
