import { z } from "zod";
import type { Conversation } from "../conversation.js";
import { stripOwnName, type Agent } from "../agent.js";

/**
 * Pieces several strategies share: reading a human's interjection (messages, addressing,
 * commands), and asking an agent for a short reply that may nominate the next speaker.
 */

/** "strategy.<field> names unknown participant" problems for each name that does not resolve. */
export function unknownNames(entries: [field: string, name: string | undefined][], find: (name: string) => unknown): string[] {
  return entries.filter(([, name]) => name !== undefined && !find(name)).map(([field, name]) => `strategy.${field} names unknown participant "${name}"`);
}

export interface HumanAct {
  kind: "message" | "command" | "pass";
  text?: string;
  /** Participant the human addressed ("@Name ..." or "/to Name ..."). */
  addressee?: Agent;
  /** Command name for "/name args" lines (e.g. "summary", "mode", "facilitator"). */
  command?: string;
  args?: string;
  /** What the person typed, verbatim. */
  raw?: string;
}

/**
 * Interpret what a human typed. Messages are kept verbatim; "@Name" at the start (or
 * "/to Name text") addresses a participant; "/word args" is a command only when `commands`
 * (what the strategy understands) lists it. Anything else, unknown commands and "/to" with an
 * unknown name included, is a message, verbatim: a person's words are never lost.
 */
export function readHumanInput(conversation: Conversation, raw: string | null, commands: readonly string[] = []): HumanAct {
  if (raw === null) return { kind: "pass" };
  const to = raw.match(/^\/to\s+(.+?)\s*[:,]\s*([\s\S]*)$/) ?? raw.match(/^\/to\s+(\S+)\s+([\s\S]*)$/);
  if (to) {
    const addressee = conversation.find(to[1]);
    if (addressee) return { kind: "message", text: to[2], addressee };
  }
  const command = raw.match(/^\/([a-z-]+)\b\s*(.*)$/i);
  if (command && commands.includes(command[1].toLowerCase())) return { kind: "command", command: command[1].toLowerCase(), args: command[2].trim(), raw };
  const mention = raw.match(/^@([^\s,:]+(?:\s[^\s,:]+)?)[\s,:]/);
  if (mention) {
    const addressee = conversation.find(mention[1]) ?? conversation.find(mention[1].split(/\s/)[0]);
    if (addressee) return { kind: "message", text: raw, addressee };
  }
  const byName = conversation.participants.find((p) => p.kind !== "human" && new RegExp(`^${escape(p.name)}[,:]`, "i").test(raw));
  return { kind: "message", text: raw, addressee: byName };
}

/**
 * Every person's chance to speak at a strategy's decision point. On the page, what each of them
 * posted since the last one, in the order it came across people (nobody waits for anybody); at
 * the terminal, each is asked in turn and may pass. `except` (a person about to be asked for
 * their turn) is left out: their words are their answer.
 */
export async function humanFloor(
  conversation: Conversation,
  prompt: string,
  options: { controls: readonly string[]; commands: readonly string[]; except?: Agent },
): Promise<{ agent: Agent; act: HumanAct }[]> {
  const people = conversation.humans.filter((h) => h.id !== options.except?.id);
  if (conversation.interjects)
    return conversation.takeHumanMessages(people).map(({ agent, text }) => ({ agent, act: readHumanInput(conversation, text, options.commands) }));
  const acts: { agent: Agent; act: HumanAct }[] = [];
  for (const agent of people) {
    if (conversation.stopReason()) break;
    const act = readHumanInput(conversation, await conversation.askHuman(agent, prompt, { optional: true, controls: options.controls }), options.commands);
    if (act.kind !== "pass") acts.push({ agent, act });
  }
  return acts;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export const nominatingReplySchema = z.object({
  message: z.string().min(1),
  /** Name of the participant who should speak next, or null. */
  next: z.string().nullable().optional(),
});

export const nominatingReplyJsonSchema = {
  type: "object",
  properties: {
    message: { type: "string", description: "your message to the group" },
    next: { type: ["string", "null"], description: "name of the participant you want to speak next, or null" },
  },
  required: ["message", "next"],
  additionalProperties: false,
};

/** A short reply that may nominate the next speaker by name. */
export async function nominatingReply(conversation: Conversation, agent: Agent, instruction: string, wordLimit: number, purpose = "reply") {
  const { value, usage } = await conversation.decide(agent, {
    name: "reply",
    instruction:
      `${instruction}\nReply in at most ${wordLimit} words. If you want a specific participant to answer next, ` +
      `put their exact name in "next"; otherwise null. Answer as JSON {"message": ..., "next": ...}.`,
    jsonSchema: nominatingReplyJsonSchema,
    schema: nominatingReplySchema,
    purpose,
  });
  const nominee = value.next ? conversation.find(value.next) : undefined;
  const text = stripOwnName(value.message, agent);
  return {
    text,
    rawReply: text !== value.message ? value.message : undefined,
    nominee: nominee && nominee.id !== agent.id ? nominee : undefined,
    nominatedName: value.next ?? null,
    usage,
  };
}
