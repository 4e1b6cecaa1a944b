import { z } from "zod";
import { defineStrategy } from "../strategy.js";
import type { Agent } from "../agent.js";
import type { Conversation } from "../conversation.js";
import { humanFloor, unknownNames } from "./shared.js";
import { compressionSchema, HistoryCompressor } from "./compress.js";

/**
 * LLM-ranked speakers. The session opens with every persona's short initial thought (private)
 * and an LLM choice of the first speaker. Then an LLM judge ranks who is most eager and
 * relevant to speak next (a JSON list of names); at `randomRate` a random agent is picked
 * instead. Two thinking modes change the agents' instructions: explore (diverge, add new
 * directions) and focus (evaluate, merge, converge); the human switches them (/mode focus)
 * or a schedule does. A facilitator intervenes on request (/facilitator), when a drift check
 * says the discussion has drifted, or after `facilitateEvery` turns without facilitation.
 * Long histories are compressed (see compress.ts); rolling summaries and key phrases are
 * stored in the session metadata.
 */
export const ranked = defineStrategy({
  type: "ranked",
  description: "an LLM judge ranks the next speaker (with random picks), explore/focus modes, a facilitator, history compression",
  params: z
    .object({
      randomRate: z.number().min(0).max(1).default(0.2),
      mode: z.enum(["explore", "focus"]).default("explore"),
      /** Mode switches after a number of spoken turns, e.g. [{ afterTurns: 12, mode: focus }]. */
      schedule: z.array(z.object({ afterTurns: z.number().int().nonnegative(), mode: z.enum(["explore", "focus"]) }).strict()).default([]),
      facilitator: z.string().optional(),
      /** Automatic facilitation after this many spoken turns without one (0 = never). */
      facilitateEvery: z.number().int().nonnegative().default(8),
      /** Run the drift check every this many spoken turns (0 = never). */
      driftCheckEvery: z.number().int().nonnegative().default(5),
      initialThoughts: z.boolean().default(true),
      wordLimit: z.number().int().positive().default(60),
      /** How long a reply may be, in words the model reads ("one or two sentences"); replaces `wordLimit` when set. */
      replyLength: z.string().min(1).optional(),
      compression: compressionSchema.default({ after: 15, keepLast: 8, summaryWords: 150, refreshEvery: 1 }),
      /** The facilitator opens the session with a welcome that introduces the task and the colleagues. */
      welcome: z.boolean().default(false),
      /** A human message that addresses nobody goes to the persona the judge finds best placed to answer it. */
      routeUnaddressed: z.boolean().default(false),
    })
    .strict(),
  check: (params, find) => [
    ...unknownNames([["facilitator", params.facilitator]], find),
    ...(params.welcome && !params.facilitator ? ["strategy.welcome: true needs strategy.facilitator (the participant who welcomes everyone)"] : []),
  ],
  // /facilitator is offered only where there is a facilitator to call.
  controls: (params) => ["/mode explore", "/mode focus", ...(params.facilitator ? ["/facilitator"] : [])],
  async run(conversation, params) {
    const facilitator = params.facilitator ? conversation.find(params.facilitator) : undefined;
    if (params.facilitator && !facilitator) throw new Error(`strategy.facilitator names unknown participant "${params.facilitator}"`);
    const agents = conversation.machines.filter((a) => a.id !== facilitator?.id);
    const compressor = new HistoryCompressor(params.compression, (t) => t.speaker === facilitator?.id || conversation.find(t.speaker)?.kind !== "ai");
    conversation.notes.rollingSummaries = compressor.history;
    let mode = params.mode;
    const modeLog: { atTurn: number; mode: string; by: string }[] = [{ atTurn: 0, mode, by: "start" }];
    conversation.notes.modes = modeLog;
    let sinceFacilitation = 0;
    let last: Agent | undefined;
    let next: { agent: Agent; decision: Record<string, unknown> } | undefined;

    if (params.initialThoughts) {
      for (const agent of agents) {
        const { text, metadata } = await conversation.reply(agent, {
          instruction: "Before the discussion starts, write your short initial thought on the task (one or two sentences, private).",
          purpose: "initial-thought",
        });
        conversation.say(agent.id, text, {
          type: "reasoning",
          duration: 0,
          at: 0,
          metadata: { ...metadata, decision: { strategy: "ranked", phase: "initial-thought" } },
        });
      }
    }
    if (params.welcome && facilitator) {
      const { text, metadata } = await conversation.reply(facilitator, {
        instruction:
          "As the facilitator, welcome everyone: introduce the task and the colleagues present (by name and expertise), and invite the group to start. Two or three sentences.",
        purpose: "welcome",
      });
      conversation.say(facilitator.id, text, { metadata: { ...metadata, decision: { strategy: "ranked", method: "welcome" } } });
    }
    const first = await rank(conversation, agents, undefined, "Choose who should open the discussion, given the participants' initial thoughts.", true);
    next = { agent: first.agent, decision: { strategy: "ranked", method: "opening", ranking: first.ranking } };

    const switchMode = (to: "explore" | "focus", by: string) => {
      if (to === mode) return;
      mode = to;
      modeLog.push({ atTurn: conversation.spokenTurns(), mode, by });
      conversation.system(`Thinking mode: ${mode}`, { mode, by });
    };

    for (;;) {
      if (conversation.stopReason()) break;
      for (const step of params.schedule) if (conversation.spokenTurns() === step.afterTurns) switchMode(step.mode, "schedule");

      let facilitate: string | undefined;
      let ended = false;
      let spoke = false;
      // Every person may speak here: what they posted (page), or each asked in turn (terminal).
      const floor = await humanFloor(
        conversation,
        `Enter to listen; type to join in (@Name to address someone); /mode explore|focus;${facilitator ? " /facilitator;" : ""} /end.`,
        {
          controls: ["/mode explore", "/mode focus", ...(facilitator ? ["/facilitator"] : []), "/end"],
          commands: ["mode", "facilitator", "end"],
        },
      );
      for (const { agent: person, act: read } of floor) {
        // "/mode" with anything but explore|focus is not a command: keep the words as a message.
        const act =
          read.kind === "command" && read.command === "mode" && read.args !== "explore" && read.args !== "focus"
            ? { kind: "message" as const, text: read.raw }
            : read;
        if (act.kind === "command") {
          if (act.command === "mode") switchMode(act.args as "explore" | "focus", "human");
          else if (act.command === "facilitator" && facilitator) facilitate = "requested by the human";
          else if (act.command === "facilitator")
            // Never silently ignored: the person is told (their page shows a system line addressed to them).
            conversation.say("system", "There is no facilitator in this session: /facilitator does nothing here.", {
              type: "system",
              duration: 0,
              addressees: [person.id],
              metadata: { event: "command-unavailable", command: "/facilitator", participant: person.id },
            });
          else if (act.command === "end") ended = true;
        } else if (act.kind === "message" && act.text) {
          spoke = true;
          conversation.say(person.id, act.text, {
            addressees: act.addressee ? [act.addressee.id] : undefined,
            metadata: { decision: { strategy: "ranked", method: "interjection", mode } },
          });
          if (act.addressee && act.addressee.kind !== "human")
            next = { agent: act.addressee, decision: { strategy: "ranked", method: "addressed", by: person.id } };
          else if (!act.addressee && params.routeUnaddressed) {
            const routed = await rank(
              conversation,
              agents,
              undefined,
              `${person.name} just wrote a message without addressing anyone. Rank the participants by who is best placed to answer it.`,
              false,
            );
            next = { agent: routed.agent, decision: { strategy: "ranked", method: "routed", by: person.id, ranking: routed.ranking } };
          }
        }
      }
      // Every word posted is said before an /end takes effect.
      if (ended) {
        conversation.end("the human ended the session");
        break;
      }
      // After a person spoke, the next decision sees their words (and whoever they addressed answers).
      if (spoke && !facilitate) continue;
      if (!facilitate && facilitator) {
        if (params.facilitateEvery > 0 && sinceFacilitation >= params.facilitateEvery) facilitate = `${sinceFacilitation} turns without facilitation`;
        else if (params.driftCheckEvery > 0 && sinceFacilitation > 0 && conversation.spokenTurns() % params.driftCheckEvery === 0) {
          const drift = await driftCheck(conversation);
          if (drift.drifting) facilitate = `drift: ${drift.reason}`;
        }
      }
      if (facilitate && facilitator) {
        const history = await compressor.render(conversation);
        const { text, metadata } = await conversation.reply(facilitator, {
          historyText: history.text,
          instruction: `As the facilitator, intervene briefly (${facilitate}): bring the discussion back to the task, summarise where it stands, and invite a next step. Current mode: ${mode}.`,
          purpose: "facilitate",
        });
        conversation.say(facilitator.id, text, {
          metadata: { ...metadata, decision: { strategy: "ranked", method: "facilitation", reason: facilitate, mode, compression: history.compression } },
        });
        sinceFacilitation = 0;
        continue;
      }

      if (!next) {
        if (conversation.random.chance(params.randomRate)) {
          const pool = agents.filter((a) => a.id !== last?.id);
          next = {
            agent: conversation.random.pick(pool.length ? pool : agents),
            decision: { strategy: "ranked", method: "random", randomRate: params.randomRate },
          };
        } else {
          const choice = await rank(conversation, agents, last, "Rank the participants by how eager and relevant they would be to speak next.", false);
          next = { agent: choice.agent, decision: { strategy: "ranked", method: choice.fallback ? "random-fallback" : "ranked", ranking: choice.ranking } };
        }
      }
      const { agent, decision } = next;
      next = undefined;
      const history = await compressor.render(conversation);
      const { text, metadata } = await conversation.reply(agent, {
        historyText: history.text,
        instruction: `${modeInstruction[mode]}\nIt is your turn to speak as ${agent.name}. ${params.replyLength && !agent.wordLimit ? `Keep it to ${params.replyLength}.` : `Use at most ${agent.wordLimit ?? params.wordLimit} words.`}`,
        purpose: "reply",
      });
      conversation.say(agent.id, text, {
        metadata: { ...metadata, decision: { ...decision, mode, compression: history.compression, keyPhrases: compressor.history.at(-1)?.keyPhrases } },
      });
      last = agent;
      sinceFacilitation += 1;
    }
  },
});

const modeInstruction = {
  explore: "Thinking mode: EXPLORE. Diverge: add new directions, unusual angles and fresh ideas; do not judge yet.",
  focus: "Thinking mode: FOCUS. Converge: evaluate the ideas so far, merge similar ones and narrow down to the most promising.",
} as const;

const rankingSchema = z.object({ ranking: z.array(z.string()).min(1) });

/** Ask the judge for a ranking; the first valid name that is not the last speaker wins. */
async function rank(
  conversation: Conversation,
  agents: readonly Agent[],
  last: Agent | undefined,
  question: string,
  includeThoughts: boolean,
): Promise<{ agent: Agent; ranking: string[]; fallback: boolean }> {
  const names = agents.map((a) => a.name);
  const history = includeThoughts ? conversation.transcript(conversation.turns) : conversation.transcript();
  const { value } = await conversation.decide(undefined, {
    name: "rank",
    // The judge knows what the group is working on: who is best placed depends on the task.
    systemText: `You moderate a group discussion and decide who speaks next. The group's task: ${conversation.scenario.task}`,
    historyText: history,
    instruction: `${question} Candidates: ${names.join(", ")}.${last ? ` ${last.name} just spoke.` : ""} Answer as JSON {"ranking": [names, most suitable first]}.`,
    jsonSchema: {
      type: "object",
      properties: { ranking: { type: "array", items: { type: "string", enum: names } } },
      required: ["ranking"],
      additionalProperties: false,
    },
    schema: rankingSchema,
    purpose: "rank",
  });
  const ranked = value.ranking.map((n) => agents.find((a) => a.name.toLowerCase() === n.trim().toLowerCase())).filter((a): a is Agent => Boolean(a));
  const choice = ranked.find((a) => a.id !== last?.id);
  if (choice) return { agent: choice, ranking: value.ranking, fallback: false };
  const pool = agents.filter((a) => a.id !== last?.id);
  return { agent: conversation.random.pick(pool.length ? pool : agents), ranking: value.ranking, fallback: true };
}

async function driftCheck(conversation: Conversation): Promise<{ drifting: boolean; reason: string }> {
  const { value } = await conversation.decide(undefined, {
    name: "drift",
    systemText: "You check whether a group discussion stays on its task.",
    history: conversation.visible().slice(-8),
    instruction: `Task: ${conversation.scenario.task}\nHas the recent discussion drifted away from the task? Answer as JSON {"drifting": true|false, "reason": "..."}.`,
    jsonSchema: {
      type: "object",
      properties: { drifting: { type: "boolean" }, reason: { type: "string" } },
      required: ["drifting", "reason"],
      additionalProperties: false,
    },
    schema: z.object({ drifting: z.boolean(), reason: z.string() }),
    purpose: "drift-check",
  });
  return value;
}
