import { z } from "zod";
import { defineStrategy } from "../strategy.js";
import { stripOwnName, type Agent } from "../agent.js";
import { readHumanInput } from "./shared.js";

/**
 * Autonomous agents on a shared event timeline. Events are the visible turns (messages,
 * files, "is typing" notices). Whenever something new has happened since an agent last
 * decided, that agent (after a seeded pause of `pauseSeconds` simulated seconds) decides,
 * with stated reasoning, to send a message, produce a file it promised, or wait. Agents are
 * never prompted when nothing new happened for them. A message is preceded by an
 * "is typing" event that others can see, and is delivered when its typing time has passed,
 * so agents deciding in between see the typing notice but not the message yet.
 * People speak whenever they like: what a live participant posted is taken before every
 * event and wakes the agents. When every agent waits and nothing is pending, human
 * participants get the floor; the run ends when no human acts either. Reasoning is private: stored with the turn it produced,
 * or as a `reasoning` turn for a wait.
 */
export const autonomous = defineStrategy({
  type: "autonomous",
  description: "autonomous agents deciding to message, produce a file, or wait on a shared event timeline",
  params: z
    .object({
      /** Simulated seconds before an agent decides, drawn uniformly from [min, max]. */
      pauseSeconds: z
        .tuple([z.number().nonnegative(), z.number().nonnegative()])
        .refine(([min, max]) => min <= max, { message: "expected [min, max] with min <= max" })
        .default([3, 15]),
      typingVisible: z.boolean().default(true),
      /** Safety net on the number of agent decisions in one session. */
      maxDecisions: z.number().int().positive().default(500),
      wordLimit: z.number().int().positive().default(80),
      /** Extra guidance added to every decision (a preset's prompt intention), e.g. to wait for requested deliverables. */
      instruction: z.string().default(""),
    })
    .strict(),
  async run(conversation, params) {
    const agents = conversation.machines;
    const [minPause, maxPause] = params.pauseSeconds;
    const pause = () => minPause + conversation.random.next() * (maxPause - minPause);
    /** Simulated time of each agent's next decision; Infinity = idle until something new happens. */
    const nextAt = new Map<string, number>(agents.map((a) => [a.id, pause()]));
    /** Number of visible events each agent had seen at its last decision. */
    const seen = new Map<string, number>(agents.map((a) => [a.id, 0]));
    const pending: { agent: Agent; text: string; type: "message" | "file"; startedAt: number; deliverAt: number; metadata: Record<string, unknown> }[] = [];
    const humans = conversation.humans;
    let decisions = 0;

    /** Agents typing a message: not woken until it is delivered. */
    const busy = new Set<string>();
    /** Agents that have had their first look (the session start counts as something new). */
    const started = new Set<string>();
    const wakeIdle = (at: number) => {
      for (const a of agents) if (!busy.has(a.id) && nextAt.get(a.id) === Infinity) nextAt.set(a.id, at + pause());
    };

    /** Messages people posted since the last event: said now, and every idle agent wakes. */
    const takePosted = (): boolean => {
      const posted = conversation.takeHumanMessages();
      for (const { agent, text } of posted) {
        const act = readHumanInput(conversation, text);
        conversation.say(agent.id, text, {
          addressees: act.addressee ? [act.addressee.id] : undefined,
          metadata: { decision: { strategy: "autonomous", method: "posted" } },
        });
      }
      if (posted.length) wakeIdle(conversation.clock);
      return posted.length > 0;
    };

    for (;;) {
      if (conversation.stopReason()) break;
      if (decisions >= params.maxDecisions) return conversation.end(`reached maxDecisions (${params.maxDecisions})`);
      if (takePosted()) continue;
      const nextAgentTime = Math.min(...agents.map((a) => nextAt.get(a.id)!));
      const nextDelivery = pending.length ? Math.min(...pending.map((p) => p.deliverAt)) : Infinity;
      if (nextDelivery === Infinity && nextAgentTime === Infinity && conversation.realTime && conversation.interjects) {
        // Live people: give them time to speak before the session ends.
        await conversation.waitUntil(conversation.clock + conversation.dutyTimeout * (conversation.live.speed ?? 1));
        if (takePosted() || conversation.stopReason()) continue;
        return conversation.end("every agent waits and no human acts");
      }
      // In real time, the next event waits for its moment; a person posting ends the wait.
      if (await conversation.waitUntil(Math.min(nextDelivery, nextAgentTime) === Infinity ? conversation.clock : Math.min(nextDelivery, nextAgentTime)))
        continue;
      if (nextDelivery === Infinity && nextAgentTime === Infinity) {
        // Everyone waits and nothing is in flight: humans may act, or the session ends.
        let acted = false;
        for (const human of humans) {
          const act = readHumanInput(conversation, await conversation.askHuman(human, "Everyone is waiting. Type a message (Enter to end)."));
          if (act.kind === "message" && act.text) {
            conversation.say(human.id, act.text, {
              addressees: act.addressee ? [act.addressee.id] : undefined,
              metadata: { decision: { strategy: "autonomous", method: "asked" } },
            });
            acted = true;
          }
        }
        if (!acted) return conversation.end("every agent waits and no human acts");
        wakeIdle(conversation.clock);
        continue;
      }
      if (nextDelivery <= nextAgentTime) {
        const item = pending.splice(
          pending.findIndex((p) => p.deliverAt === nextDelivery),
          1,
        )[0];
        // The turn spans the typing: from the decision to the delivery.
        conversation.say(item.agent.id, item.text, { type: item.type, at: item.startedAt, duration: item.deliverAt - item.startedAt, metadata: item.metadata });
        busy.delete(item.agent.id);
        nextAt.set(item.agent.id, conversation.clock + pause());
        wakeIdle(conversation.clock);
        continue;
      }
      // The agent with the earliest decision time decides now, if something new happened for it.
      const agent = agents.find((a) => nextAt.get(a.id) === nextAgentTime)!;
      conversation.clock = Math.max(conversation.clock, nextAgentTime);
      const visible = conversation.visible();
      // New for this agent: anything since its last decision that it did not produce itself
      // (its own messages and its own "is typing" notices do not count).
      const fresh = visible.slice(seen.get(agent.id)!).filter((t) => t.speaker !== agent.id && t.metadata?.participant !== agent.id);
      const first = !started.has(agent.id);
      started.add(agent.id);
      if (fresh.length === 0 && !first) {
        nextAt.set(agent.id, Infinity);
        continue;
      }
      decisions += 1;
      const { value, usage } = await conversation.decide(agent, {
        name: "action",
        history: visible,
        instruction:
          `Simulated time: ${formatTime(conversation.clock)}. ${fresh.length ? `New since you last looked: ${fresh.length} event(s).` : "The session has just started."}\n` +
          `Decide what to do now: "message" (send a chat message of at most ${agent.wordLimit ?? params.wordLimit} words), "file" (deliver a file you promised: give fileName and its full content), or "wait". ` +
          `${params.instruction ? `${params.instruction}\n` : ""}` +
          'Explain your reasoning first (private, nobody else sees it). Answer as JSON {"reasoning", "action", "message", "fileName"}.',
        jsonSchema: actionJsonSchema,
        schema: actionSchema,
        purpose: "decide",
      });
      const decision = {
        strategy: "autonomous",
        action: value.action,
        reasoning: value.reasoning,
        decidedAt: conversation.clock,
        sawEvents: fresh.map((t) => t.id),
      };
      if (value.action === "wait" || !value.message) {
        conversation.say(agent.id, value.reasoning, { type: "reasoning", duration: 0, at: conversation.clock, metadata: { decision, usage } });
        seen.set(agent.id, conversation.visible().length);
        nextAt.set(agent.id, Infinity);
        continue;
      }
      // A file's content is kept as written; a message loses an own-name prefix ("CEO: ...").
      const text = value.action === "file" ? value.message : stripOwnName(value.message, agent);
      const type = value.action === "file" ? "file" : "message";
      const typing = conversation.durationOf(agent, text);
      if (params.typingVisible) conversation.system(`${agent.name} is typing…`, { event: "typing", participant: agent.id });
      seen.set(agent.id, conversation.visible().length);
      pending.push({
        agent,
        text,
        type,
        startedAt: conversation.clock,
        deliverAt: conversation.clock + typing,
        metadata: {
          decision,
          usage,
          ...(text !== value.message ? { rawReply: value.message } : {}),
          ...(type === "file" ? { fileName: value.fileName ?? "untitled" } : {}),
        },
      });
      // The typing agent is busy until its message is delivered; the others see the typing notice.
      nextAt.set(agent.id, Infinity);
      busy.add(agent.id);
      if (params.typingVisible) wakeIdle(conversation.clock);
    }
  },
});

const actionSchema = z.object({
  reasoning: z.string(),
  action: z.enum(["message", "file", "wait"]),
  message: z.string().nullable().optional(),
  fileName: z.string().nullable().optional(),
});

const actionJsonSchema = {
  type: "object",
  properties: {
    reasoning: { type: "string" },
    action: { type: "string", enum: ["message", "file", "wait"] },
    message: { type: ["string", "null"], description: "the message text, or the file's full content" },
    fileName: { type: ["string", "null"] },
  },
  required: ["reasoning", "action", "message", "fileName"],
  additionalProperties: false,
};

function formatTime(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = Math.floor(seconds % 60);
  return `${m}:${String(s).padStart(2, "0")}`;
}
