import { z } from "zod";
import { defineStrategy } from "../strategy.js";
import type { Turn } from "../../transcript/schema.js";
import { assignRoles } from "./role-sets.js";

/**
 * Round-based discussion (as in multi-agent debate studies): an initiation round, discussion
 * rounds in which every agent sees the previous round's replies of all the others, and a
 * final convergence round asking for a finalised list of answers. Agents within a round
 * speak simultaneously: they see only earlier rounds, never each other's reply in the same
 * round (all turns of a round share one start time); they also see everything humans said and
 * their own previous reply. Each agent is reminded of its role
 * every round (and, with `claimRole`, asked to state it first). The last round is a discussion
 * round that also asks to converge. Defaults: 5 rounds in all (initiation + 3 discussion + convergence).
 * `roleSet` assigns shipped roles ("professions" or "six-hats") to the agents in order.
 */
export const rounds = defineStrategy({
  type: "rounds",
  description: "round-based discussion: initiation, discussion rounds seeing the others' previous replies, convergence",
  params: z
    .object({
      rounds: z.number().int().min(2).default(5),
      roleSet: z.enum(["professions", "six-hats", "llm-discussion"]).optional(),
      initiationPrompt: z.string().default("Give your initial answer to the task from your perspective."),
      discussionPrompt: z
        .string()
        .default("Here are the other participants' answers from the previous round. Considering them, refine your answer; say where you agree or disagree."),
      convergencePrompt: z.string().default("This is the final round. Give your finalised list of answers as a numbered list."),
      /** Ask each agent to state its role at the start of every reply (LLM Discussion's role-play). */
      claimRole: z.boolean().default(false),
    })
    .strict(),
  async run(conversation, params) {
    const agents = conversation.machines;
    const roleText = new Map<string, string>();
    if (params.roleSet) {
      const assigned = assignRoles(agents.length, params.roleSet);
      // Roles are declared to the group: the participant's role is what every transcript line and
      // system prompt shows ("Ana (White Hat)"), it is stored with the participant, and a system
      // event lists them all.
      agents.forEach((agent, i) => {
        const roles = assigned[i];
        roleText.set(agent.id, roles.map((r) => r.description).join("\n"));
        agent.role = roles.map((r) => r.name).join(" & ");
      });
      conversation.notes.roles = Object.fromEntries(agents.map((a) => [a.name, a.role]));
      conversation.system(`Roles: ${agents.map((a) => `${a.name} is ${a.role}`).join("; ")}.`, {
        event: "roles",
        roleSet: params.roleSet,
        roles: conversation.notes.roles,
      });
    }
    let previousRound: Turn[] = [];
    for (let round = 1; round <= params.rounds; round++) {
      if (conversation.stopReason()) return;
      const phase = round === 1 ? "initiation" : round === params.rounds ? "convergence" : "discussion";
      const roundStart = conversation.clock;
      conversation.system(`Round ${round} of ${params.rounds} (${phase})`, { round, phase });
      const seenHistory = [...conversation.visible().filter((t) => t.type !== "system")];
      // Everyone answers from the same view of the conversation (simultaneity): compute all
      // replies first, then record them with the same start time.
      const replies: { agentId: string; text: string; metadata: Record<string, unknown> }[] = [];
      for (const agent of agents) {
        const role = roleText.get(agent.id) ?? agent.persona ?? agent.role ?? "";
        // The last round is a discussion round too (the others' answers are in view), then asked to converge.
        const prompt =
          round === 1 ? params.initiationPrompt : round === params.rounds ? `${params.discussionPrompt} ${params.convergencePrompt}` : params.discussionPrompt;
        // What the agent sees: everything humans said so far, and the previous round's replies
        // (its own included, so it can refine it), never a reply from the current round.
        const seen = seenHistory.filter((t) => conversation.get(t.speaker).kind === "human" || previousRound.includes(t));
        const reminder = role ? `Remember your role: ${role}\n${params.claimRole ? "Begin your reply by stating your role.\n" : ""}` : "";
        const { text, metadata } = await conversation.reply(agent, {
          history: seen,
          instruction: `${reminder}Round ${round} of ${params.rounds}. ${prompt}`,
          purpose: `round-${round}`,
        });
        replies.push({ agentId: agent.id, text, metadata: { ...metadata, decision: { strategy: "rounds", round, phase, sawTurns: seen.map((t) => t.id) } } });
      }
      previousRound = replies.map((r) => conversation.say(r.agentId, r.text, { at: roundStart, metadata: r.metadata }));
      for (const human of conversation.humans) {
        const text = await conversation.askHuman(human, `Round ${round} is over. Add a message, or press Enter to continue.`, { optional: true });
        if (text !== null) conversation.say(human.id, text, { metadata: { decision: { strategy: "rounds", round, phase } } });
      }
    }
    conversation.end(`all ${params.rounds} rounds done`);
  },
});
