import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initStudy, saveSession } from "../../src/study/study.js";
import { sessionSchema, type Session, type SessionInput } from "../../src/transcript/schema.js";
import { turnId } from "../../src/transcript/ids.js";
import type { RecordedRequest, ScriptedReply } from "../support/openai-server.js";

/** A small session: alternating human/AI messages, optionally with system and reasoning turns. */
export function makeSession(id: string, texts: string[], extra: { system?: number[]; reasoning?: number[] } = {}): Session {
  const input: SessionInput = {
    id,
    title: `Session ${id}`,
    participants: [
      { id: "ava", name: "Ava", kind: "human", role: "facilitator" },
      { id: "nova", name: "Nova", kind: "ai", role: "assistant" },
      { id: "sys", name: "System", kind: "system" },
    ],
    turns: texts.map((text, index) => ({
      id: turnId(index),
      index,
      speaker: extra.system?.includes(index) ? "sys" : index % 2 === 0 ? "ava" : "nova",
      text,
      type: extra.system?.includes(index) ? "system" : extra.reasoning?.includes(index) ? "reasoning" : "message",
    })),
  };
  return sessionSchema.parse(input);
}

/** A study folder in the OS temp dir holding the given sessions. */
export async function makeStudy(sessions: Session[]): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-code-"));
  await initStudy(dir);
  for (const s of sessions) await saveSession(dir, s);
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The TARGET turn lines of a coding request: [{turn, text}]. */
export function targetsOf(request: RecordedRequest): Array<{ turn: string; text: string }> {
  const user = (request.body?.messages ?? []).find((m: { role: string; content: string }) => m.role === "user" && /^TARGET \[/m.test(m.content));
  if (!user) return [];
  const out: Array<{ turn: string; text: string }> = [];
  for (const line of String(user.content).split("\n")) {
    const match = /^TARGET \[(t\d+)[^\]]*\] [^:]+: (.*)$/.exec(line);
    if (match) out.push({ turn: match[1], text: match[2] });
  }
  return out;
}

/** The session id named in a coding request's user message. */
export function sessionOf(request: RecordedRequest): string {
  const user = request.body.messages[1].content as string;
  return /^Session: (?:.* \()?([A-Za-z0-9._-]+)\)?$/m.exec(user)![1];
}

/** Deterministic fake coder for bales-ipa: questions ask for opinion, "thanks" shows solidarity, else gives opinion. */
export function balesCodeFor(text: string): string {
  if (text.includes("?")) return "asks-opinion";
  if (/thank/i.test(text)) return "shows-solidarity";
  return "gives-opinion";
}

/** A server handler answering every coding request correctly (single or batched format). */
export function balesHandler(request: RecordedRequest): ScriptedReply {
  const targets = targetsOf(request);
  if (request.body.response_format?.json_schema?.name === "turn_codes" || /"items"/.test(request.body.messages[0].content.split("Format:").pop())) {
    return { content: JSON.stringify({ items: targets.map((t) => ({ turn: t.turn, code: balesCodeFor(t.text), rationale: "scripted" })) }) };
  }
  return { content: JSON.stringify({ code: balesCodeFor(targets[0].text), rationale: "scripted" }) };
}

export const TEXTS_A = [
  "Welcome everyone, shall we start?",
  "I think we should begin with the budget.",
  "Thanks, that helps.",
  "What do you think about the timeline?",
  "It looks tight to me.",
  "Can we move the deadline?",
];
export const TEXTS_B = ["Session B opens here.", "Do you agree with the plan?", "Thank you for the summary.", "I would add a test phase."];
