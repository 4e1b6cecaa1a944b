import type { Importer, ImportOptions, ImportResult } from "../types.js";
import { readContent } from "./content-parts.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, childPath, expectObject, expectString, isObject, rest, type JsonObject } from "./json-shape.js";
import type { SessionInput } from "../../transcript/schema.js";

/**
 * Round-based multi-agent discussion logs, as research code (multi-agent debate and similar)
 * writes them: `{question: {agentName: [{role, content}, …]}}`. Each agent's list is its own
 * chat history: prompts (`user`), its replies (`assistant`), maybe a leading `system` persona.
 *
 * One session per question (title = the question). Round r holds every agent's r-th reply, in
 * the agents' key order. The prompts an agent received before that reply become `system`
 * turns from the "Moderator" participant addressed to it (default), or, with
 * `promptsAs: "metadata"`, go to session metadata `prompts` as {round, agent, text}. When
 * every agent got the identical prompt in a round it is emitted once, addressed to all.
 * A `system` message before an agent's first reply is its persona. Keys of a question whose
 * value is not a message list (e.g. "answer": "42") are kept in session metadata.
 * A log of one run with its settings at the top (`{"model_name": …, "temperature": …, "players":
 * {agent: [...]}}`, as multi-agent debate code writes it) is one session: each object of agent
 * lists is read as above, the settings go to session metadata `settings`, and a `question`, `topic`,
 * `task` or `source` setting is the title.
 */
const AGENTS_OBJECT = /"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\[\s*\{\s*"(role|content)"\s*:/;
/** Settings of a single run that name what it was about, in order of preference (its title). */
const TITLE_KEYS = ["question", "topic", "task", "source"];

export const roundsLogImporter: Importer = {
  name: "rounds-log",
  description: "round-based multi-agent logs: {question: {agent: [{role, content}, …]}}",
  extensions: [".json"],
  input: "file",
  detect(path, head) {
    // {"question": {…, "agent": [{"role": …: an object of objects holding message lists.
    const questionThenObject = /^\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{/.test(head);
    const messageList = /"(?:[^"\\]|\\.)*"\s*:\s*\[\s*\{\s*"(role|content)"\s*:/.test(head);
    // {"meta": {…}, "messages": [{"role": …}]} is a wrapped chat, not a rounds log.
    if (!messageList || /"messages"\s*:\s*\[/.test(head)) return 0;
    // One run with its settings beside the agents: {"model_name": …, "players": {"agent": [{"role": …}]}}.
    if (!questionThenObject) return AGENTS_OBJECT.test(head) ? 0.8 : 0;
    return /^\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\[/.test(head) ? 0.9 : 0.85;
  },
  async parse(input, options) {
    const root = parseJson(await input.readText(), input.path);
    const questions = expectObject(root, input.path, "$", 'an object keyed by question: {"question": {"agent": [{"role": …, "content": …}]}}');
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    const stem = baseName(input.path).replace(/\.[^.]*$/, "");
    const entries = Object.entries(questions);
    // Settings only beside at least one object of agents: a bare `{"q": [1]}` is still a malformed question.
    const settings = entries.some(([, value]) => isObject(value)) ? entries.filter(([, value]) => !isObject(value)) : [];
    for (const [question, value] of entries) {
      if (settings.length > 0 && !isObject(value)) continue;
      const session = importQuestion(question, value, input.path, stem, result.sessions.length, options, result.warnings);
      if (settings.length > 0) {
        session.metadata = { ...session.metadata, settings: Object.fromEntries(settings) };
        const title = TITLE_KEYS.map((k) => questions[k]).find((v) => typeof v === "string");
        if (typeof title === "string") session.title = title;
      }
      result.sessions.push(session);
    }
    if (result.sessions.length === 0) result.warnings.push(`${input.path}: no questions in the log`);
    return result;
  },
};

interface Message {
  role: string;
  text: string;
  path: string;
  extra?: JsonObject;
}

interface Agent {
  name: string;
  id: string;
  /** Per reply: the prompts before it and the reply itself. */
  rounds: { prompts: Message[]; reply: Message }[];
  /** Prompts after the last reply (the log ended waiting for an answer). */
  trailing: Message[];
}

function importQuestion(question: string, value: unknown, file: string, stem: string, n: number, options: ImportOptions, warnings: string[]): SessionInput {
  const qPath = childPath("$", question);
  const agentsObj = expectObject(value, file, qPath, 'an object keyed by agent name: {"agent": [{"role": …, "content": …}]}');
  const metadata: Record<string, unknown> = { source: { file, format: "rounds-log" }, question };
  const session = new SessionBuilder(`${stem}-q${n + 1}`, question, metadata);
  const asMetadata = options.promptsAs === "metadata";
  const agents: Agent[] = [];
  const extra: JsonObject = {};
  for (const [name, list] of Object.entries(agentsObj)) {
    const aPath = childPath(qPath, name);
    if (!Array.isArray(list)) {
      extra[name] = list;
      continue;
    }
    const messages = list.map((m, i) => readMessage(m, file, childPath(aPath, i)));
    const agent: Agent = { name, id: session.participant(`agent\u0000${name}`, { name, kind: "ai", role: "agent" }), rounds: [], trailing: [] };
    let pending: Message[] = [];
    const persona: string[] = [];
    for (const m of messages) {
      if (m.role === "assistant") {
        agent.rounds.push({ prompts: pending, reply: m });
        pending = [];
      } else if (m.role === "system" && agent.rounds.length === 0 && pending.length === 0) persona.push(m.text);
      else pending.push(m);
    }
    agent.trailing = pending;
    if (persona.length > 0) session.get(`agent\u0000${name}`)!.persona = persona.join("\n\n");
    agents.push(agent);
  }
  if (Object.keys(extra).length > 0) metadata.extra = extra;

  const moderator = () => session.participant("moderator", { name: "Moderator", kind: "system", role: "prompter" });
  const prompts: JsonObject[] = [];
  const emitPrompts = (list: Message[], round: number, to: Agent[]) => {
    for (const p of list) {
      if (asMetadata) prompts.push({ round, agents: to.map((a) => a.name), role: p.role, text: p.text, ...(p.extra ? { metadata: p.extra } : {}) });
      else
        session.turn({
          speaker: moderator(),
          text: p.text,
          type: "system",
          addressees: to.map((a) => a.id),
          metadata: { round, role: p.role, ...(p.extra ?? {}) },
        });
    }
  };
  const rounds = Math.max(0, ...agents.map((a) => a.rounds.length));
  for (let r = 0; r <= rounds; r++) {
    const round = r + 1;
    // Agents still talking in this round, each with what they were prompted with.
    const batch = agents.map((a) => ({
      agent: a,
      prompts: r < a.rounds.length ? a.rounds[r].prompts : r === a.rounds.length ? a.trailing : [],
      reply: a.rounds[r]?.reply,
    }));
    const withPrompts = batch.filter((b) => b.prompts.length > 0);
    const shared =
      withPrompts.length > 1 &&
      withPrompts.length === batch.filter((b) => b.reply || b.prompts.length).length &&
      withPrompts.every((b) => samePrompts(b.prompts, withPrompts[0].prompts));
    if (shared)
      emitPrompts(
        withPrompts[0].prompts,
        round,
        withPrompts.map((b) => b.agent),
      );
    for (const b of batch) {
      if (!shared) emitPrompts(b.prompts, round, [b.agent]);
      if (b.reply) session.turn({ speaker: b.agent.id, text: b.reply.text, type: "message", metadata: { round, ...(b.reply.extra ?? {}) } });
    }
  }
  if (asMetadata && prompts.length > 0) metadata.prompts = prompts;
  if (agents.length === 0) warnings.push(`${file}: ${qPath}: no agent message lists; imported an empty session`);
  return session.build();
}

function samePrompts(a: Message[], b: Message[]): boolean {
  return a.length === b.length && a.every((m, i) => m.text === b[i].text && m.role === b[i].role);
}

function readMessage(raw: unknown, file: string, path: string): Message {
  const obj = expectObject(raw, file, path, 'a message {"role": …, "content": …}');
  const role = expectString(obj.role, file, childPath(path, "role"), 'a role such as "user", "assistant" or "system"');
  const body = readContent(obj.content, file, childPath(path, "content"));
  const extra = rest(obj, ["role", "content"]) ?? {};
  if (body.parts) extra.parts = body.parts;
  if (Object.keys(extra).length > 0) return { role, text: body.text, path, extra };
  return { role, text: body.text, path };
}
