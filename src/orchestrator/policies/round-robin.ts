import { z } from "zod";
import { defineStrategy } from "../strategy.js";
import type { Agent } from "../agent.js";
import { readHumanInput, unknownNames } from "./shared.js";

/**
 * Fixed speaking order. `order` lists participant names (default: scenario order).
 * mode "round-robin" cycles until a stop condition; mode "pipeline" is a linear pipeline of
 * experts: each speaks once per pass, building on the previous output, for `passes` passes.
 * People in the order are asked in their turn (an empty answer passes; on the page, what they
 * posted since their last turn is said first); people left out of the order speak whenever they
 * post, their words said before the next turn.
 */
export const roundRobin = defineStrategy({
  type: "round-robin",
  description: "fixed speaking order (plain round-robin, or a linear pipeline of experts)",
  params: z
    .object({
      order: z.array(z.string()).optional(),
      mode: z.enum(["round-robin", "pipeline"]).default("round-robin"),
      /** Pipeline passes (pipeline mode only). */
      passes: z.number().int().positive().default(1),
    })
    .strict(),
  check: (params, find) =>
    unknownNames(
      (params.order ?? []).map((name, i) => [`order[${i}]`, name]),
      find,
    ),
  async run(conversation, params) {
    const order: Agent[] = (params.order ?? conversation.participants.map((p) => p.name)).map((name) => {
      const agent = conversation.find(name);
      if (!agent) throw new Error(`strategy.order names unknown participant "${name}"`);
      return agent;
    });
    let passesInARow = 0;
    // People outside the order speak whenever they post (page): their words are said before each turn.
    const outside = conversation.humans.filter((h) => !order.some((a) => a.id === h.id));
    for (let step = 0; ; step++) {
      if (conversation.stopReason()) return;
      if (conversation.interjects && outside.length)
        for (const { agent, text } of conversation.takeHumanMessages(outside)) {
          const addressee = readHumanInput(conversation, text).addressee;
          conversation.say(agent.id, text, {
            addressees: addressee ? [addressee.id] : undefined,
            metadata: { decision: { strategy: "round-robin", method: "posted" } },
          });
        }
      const pass = Math.floor(step / order.length);
      if (params.mode === "pipeline" && pass >= params.passes)
        return conversation.end(`pipeline finished (${params.passes} pass${params.passes > 1 ? "es" : ""})`);
      const speaker = order[step % order.length];
      const position = step % order.length;
      const metadata = { decision: { strategy: "round-robin", mode: params.mode, position, pass } };
      if (speaker.kind === "human") {
        // The prompt names no strategy: a participant sees nothing of the design.
        const text = await conversation.askHuman(speaker, "Your turn (an empty line passes).");
        if (text === null) {
          passesInARow += 1;
        } else {
          passesInARow = 0;
          conversation.say(speaker.id, text, { metadata });
        }
      } else {
        const previous = step === 0 ? undefined : order[(step - 1) % order.length];
        const instruction =
          params.mode === "pipeline"
            ? `You are step ${position + 1} of ${order.length} in a pipeline of experts.${previous ? ` Build on ${previous.name}'s output above.` : ""} Write your contribution as ${speaker.name}.`
            : `It is your turn to speak as ${speaker.name}.`;
        const { text, metadata: callMeta } = await conversation.reply(speaker, { instruction, purpose: "reply" });
        passesInARow = 0;
        conversation.say(speaker.id, text, { metadata: { ...metadata, ...callMeta } });
      }
      if (conversation.scenario.stop.allPass && passesInARow >= order.length) return conversation.end("everyone passed");
    }
  },
});
