import { z } from "zod";
import { defineStrategy } from "../strategy.js";
import type { Agent } from "../agent.js";
import type { Conversation } from "../conversation.js";
import { humanFloor, nominatingReply, readHumanInput, unknownNames, type HumanAct } from "./shared.js";

/**
 * Self-selection by confidence. After each message every agent rates, 0-10, how confident
 * it is that it can add to the latest message's topic and intent (stating the topic and
 * intent it perceived). The most confident agent at or above `threshold` ("above the threshold"
 * in the literature; 7 of 10 by default) speaks; ties are
 * broken by the seeded random generator; the others may acknowledge with a minimal
 * backchannel. A speaker may nominate the next speaker by name and the human may address
 * anyone; a nomination overrides confidence. When nobody is nominated or confident enough
 * (or the human types /summary), the summariser distils the discussion; with too little
 * material it may ask for more rounds (at most `maxExtraRounds`).
 */
export const confidence = defineStrategy({
  type: "confidence",
  description: "self-selection by confidence ratings, with nomination and a summariser",
  params: z
    .object({
      threshold: z.number().min(0).max(10).default(7),
      /** "at-least": confidence >= threshold speaks (ours); "above": only confidence > threshold (YES AND). */
      thresholdRule: z.enum(["at-least", "above"]).default("at-least"),
      /** Words per reply (a participant's own wordLimit wins). */
      wordLimit: z.number().int().positive().default(40),
      /** Name of the summariser agent (excluded from self-selection). */
      summariser: z.string().optional(),
      /** Words in the summary (a summariser's own wordLimit wins; default: no limit is asked). */
      summaryWordLimit: z.number().int().positive().optional(),
      backchannel: z
        .object({ text: z.string().default("hmm"), probability: z.number().min(0).max(1).default(0.3) })
        .strict()
        .default({ text: "hmm", probability: 0.3 }),
      maxExtraRounds: z.number().int().nonnegative().default(1),
      /** Open with this agent (default: the human if any, else the most confident on the task). */
      opener: z.string().optional(),
    })
    .strict(),
  check: (params, find) =>
    unknownNames(
      [
        ["summariser", params.summariser],
        ["opener", params.opener],
      ],
      find,
    ),
  controls: () => ["/summary"],
  async run(conversation, params) {
    const summariser = params.summariser ? mustFind(conversation, params.summariser, "strategy.summariser") : undefined;
    const opener = params.opener ? mustFind(conversation, params.opener, "strategy.opener") : undefined;
    let ended: DiscussionEnd = await discuss(conversation, params, summariser, opener, true);
    // After the operator's End nothing more is generated, no summary either; a discussion that
    // reached its turn or time limit still gets its summary (which then never asks for more).
    for (let extra = 0; summariser && !conversation.stoppedFromOutside(); extra++) {
      const mayAskForMore = ended === "nobody" && extra < params.maxExtraRounds && !conversation.stopReason();
      if (!(await summarise(conversation, summariser, mayAskForMore, summariser.wordLimit ?? params.summaryWordLimit))) break;
      ended = await discuss(conversation, params, summariser, undefined, false);
    }
    conversation.end(
      ended === "human-summary"
        ? "the human asked for the summary"
        : ended === "summary-nominated"
          ? "the summariser was nominated"
          : ended === "nobody"
            ? "nobody nominated or confident enough"
            : (conversation.stopReason() ?? "stopped"),
    );
  },
});

type DiscussionEnd = "nobody" | "human-summary" | "summary-nominated" | "stop";
/** What a human may type besides messages. */
const COMMANDS = ["summary"];
type Params = z.infer<typeof confidence.params>;

/** One stretch of self-selected discussion, until nobody is confident enough, the human asks for the summary, or a stop condition. */
async function discuss(
  conversation: Conversation,
  params: Params,
  summariser: Agent | undefined,
  opener: Agent | undefined,
  opening: boolean,
): Promise<DiscussionEnd> {
  const speakers = conversation.machines.filter((a) => a.id !== summariser?.id);
  const human = conversation.humans[0];
  let nominee: Agent | undefined = opener;
  let nominatedBy: string | undefined;

  if (opening && !nominee && human) {
    const act = readHumanInput(conversation, await conversation.askHuman(human, "Open the discussion (Enter to let the agents start)."), COMMANDS);
    if (act.kind === "message" && act.text) {
      conversation.say(human.id, act.text, { addressees: act.addressee ? [act.addressee.id] : undefined });
      nominee = act.addressee;
      nominatedBy = human.id;
    }
  }

  for (;;) {
    if (conversation.stopReason()) return "stop";
    let speaker: Agent | undefined;
    let decision: Record<string, unknown>;
    if (nominee) {
      speaker = nominee;
      decision = { strategy: "confidence", method: "nomination", nominatedBy };
    } else {
      const ratings = await rateAll(conversation, speakers);
      // The operator may have ended the session while the agents rated: nobody speaks after an End.
      if (!ratings) return "stop";
      const best = Math.max(...Object.values(ratings).map((r) => r.confidence));
      const top = speakers.filter((a) => ratings[a.name].confidence === best);
      const confident = (value: number) => (params.thresholdRule === "above" ? value > params.threshold : value >= params.threshold);
      speaker = confident(best) ? (top.length > 1 ? conversation.random.pick(top) : top[0]) : undefined;
      decision = {
        strategy: "confidence",
        method: speaker ? "confidence" : "none",
        ratings,
        threshold: params.threshold,
        thresholdRule: params.thresholdRule,
        ...(top.length > 1 ? { tie: top.map((a) => a.name) } : {}),
      };
      if (!speaker) {
        conversation.system(`Nobody is confident enough to continue (highest ${best}, threshold ${params.threshold}).`, { decision });
        return "nobody";
      }
      // The others acknowledge the latest message, at most with a minimal backchannel; its
      // author does not acknowledge its own message.
      const author = conversation
        .visible()
        .filter((t) => t.type === "message")
        .at(-1)?.speaker;
      for (const other of speakers) {
        if (
          other.id !== speaker.id &&
          other.id !== author &&
          !confident(ratings[other.name].confidence) &&
          conversation.random.chance(params.backchannel.probability)
        ) {
          conversation.say(other.id, params.backchannel.text, {
            type: "backchannel",
            duration: 0.5,
            at: conversation.clock,
            metadata: { decision: { strategy: "confidence", confidence: ratings[other.name].confidence } },
          });
        }
      }
    }
    nominee = undefined;
    nominatedBy = undefined;
    if (speaker.kind === "human") {
      const act = readHumanInput(
        conversation,
        await conversation.askHuman(speaker, "You were asked to speak (Enter to pass, /summary to finish).", { controls: ["/summary"] }),
        COMMANDS,
      );
      if (act.kind === "command" && act.command === "summary") return "human-summary";
      if (act.kind === "message" && act.text) {
        conversation.say(speaker.id, act.text, { addressees: act.addressee ? [act.addressee.id] : undefined, metadata: { decision } });
        if (summariser && asksSummariser(act, summariser)) return "human-summary";
        nominee = act.addressee;
        nominatedBy = speaker.id;
      }
      continue;
    }
    const reply = await nominatingReply(conversation, speaker, `It is your turn to speak as ${speaker.name}.`, speaker.wordLimit ?? params.wordLimit);
    conversation.say(speaker.id, reply.text, {
      addressees: reply.nominee ? [reply.nominee.id] : undefined,
      metadata: { decision: { ...decision, nominates: reply.nominatedName }, usage: reply.usage, ...(reply.rawReply ? { rawReply: reply.rawReply } : {}) },
    });
    nominee = reply.nominee;
    nominatedBy = reply.nominee ? speaker.id : undefined;
    // Nominating the summariser asks for the summary; it does not get an ordinary turn.
    if (summariser && nominee?.id === summariser.id) return "summary-nominated";
    // Everyone else may speak now (a nominated person is asked once, as the nominee).
    if (conversation.humans.length && !conversation.stopReason()) {
      const floor = await humanFloor(conversation, "Enter to listen, type to join in (@Name to address someone), /summary to finish.", {
        controls: ["/summary"],
        commands: COMMANDS,
        except: nominee?.kind === "human" ? nominee : undefined,
      });
      let summary = false;
      for (const { agent: person, act } of floor) {
        if (act.kind === "command" && act.command === "summary") summary = true;
        if (act.kind !== "message" || !act.text) continue;
        conversation.say(person.id, act.text, {
          addressees: act.addressee ? [act.addressee.id] : undefined,
          metadata: { decision: { strategy: "confidence", method: "interjection" } },
        });
        if (summariser && asksSummariser(act, summariser)) summary = true;
        // Addressing someone nominates them; a message that addresses nobody goes to self-selection
        // (a person nominated by the agent keeps their turn).
        if (act.addressee) {
          nominee = act.addressee;
          nominatedBy = person.id;
        } else if (nominee?.kind !== "human") {
          nominee = undefined;
          nominatedBy = undefined;
        }
      }
      // Every word posted is said first; then the summary that was asked for.
      if (summary) return "human-summary";
    }
  }
}

/**
 * A person's message that calls the summariser: addressed to it ("@Summariser ...",
 * "Summariser, can you please summarise for me?"), or asking for a summary by name.
 */
function asksSummariser(act: HumanAct, summariser: Agent): boolean {
  if (act.addressee?.id === summariser.id) return true;
  return new RegExp(`\\b${summariser.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i").test(act.text ?? "") && /\bsumm?ar(y|i[sz]e)/i.test(act.text ?? "");
}

function mustFind(conversation: Conversation, name: string, field: string): Agent {
  const agent = conversation.find(name);
  if (!agent) throw new Error(`${field} names unknown participant "${name}"`);
  return agent;
}

const ratingSchema = z.object({
  topic: z.string(),
  intent: z.string(),
  confidence: z.number().int().min(0).max(10),
});

const ratingJsonSchema = {
  type: "object",
  properties: {
    topic: { type: "string", description: "the topic of the latest message, as you perceive it" },
    intent: { type: "string", description: "what the latest message is trying to do (ask, propose, ...)" },
    confidence: { type: "integer", minimum: 0, maximum: 10, description: "how confident you are that you can add to it" },
  },
  required: ["topic", "intent", "confidence"],
  additionalProperties: false,
};

/** Every agent's rating of the latest message (sequential: same order, same seed, same cache keys); undefined once the session must stop. */
async function rateAll(conversation: Conversation, agents: readonly Agent[]) {
  const ratings: Record<string, z.infer<typeof ratingSchema>> = {};
  for (const agent of agents) {
    if (conversation.stopReason()) return undefined;
    const { value } = await conversation.decide(agent, {
      name: "confidence",
      instruction:
        "Consider the latest message. State its topic and intent as you perceive them, and rate from 0 to 10 " +
        'how confident you are that you can add something valuable to it now. Answer as JSON {"topic", "intent", "confidence"}.',
      jsonSchema: ratingJsonSchema,
      schema: ratingSchema,
      purpose: "confidence",
    });
    ratings[agent.name] = value;
  }
  return ratings;
}

const summarySchema = z.object({ enough: z.boolean(), summary: z.string(), followUp: z.string().nullable().optional() });

/** The summariser distils the discussion; returns true when it asks for another round instead. */
async function summarise(conversation: Conversation, summariser: Agent, mayAskForMore: boolean, wordLimit: number | undefined): Promise<boolean> {
  const { value, usage } = await conversation.decide(summariser, {
    name: "summary",
    instruction:
      "The discussion has paused. If there is enough material, distil it into a concise summary of the ideas and decisions " +
      `${wordLimit ? `in at most ${wordLimit} words ` : ""}("enough": true). ${mayAskForMore ? 'If there is too little material, set "enough" to false and write in "followUp" a question that asks the group for more.' : 'Set "enough" to true.'} ` +
      'Answer as JSON {"enough", "summary", "followUp"}.',
    jsonSchema: {
      type: "object",
      properties: { enough: { type: "boolean" }, summary: { type: "string" }, followUp: { type: ["string", "null"] } },
      required: ["enough", "summary", "followUp"],
      additionalProperties: false,
    },
    schema: summarySchema,
    purpose: "summary",
  });
  // The operator pressed End while the summary was asked for: it is not stored.
  if (conversation.stoppedFromOutside()) return false;
  if (!value.enough && mayAskForMore && value.followUp) {
    conversation.say(summariser.id, value.followUp, { metadata: { decision: { strategy: "confidence", method: "summariser-asks-more" }, usage } });
    return true;
  }
  conversation.say(summariser.id, value.summary, { metadata: { decision: { strategy: "confidence", method: "summary" }, usage } });
  conversation.notes.summary = value.summary;
  return false;
}
