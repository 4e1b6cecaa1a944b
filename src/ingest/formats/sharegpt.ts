import type { ParticipantKind, TurnType } from "../../transcript/schema.js";
import type { Importer, ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, childPath, expectArray, expectObject, expectString, idText, rest } from "./json-shape.js";

const EXPECTED = 'ShareGPT conversations [{"id": …, "conversations": [{"from": "human" | "gpt" | …, "value": …}]}]';
/** Who `from` names: people, models, the system prompt and tool traffic (LLaMA-Factory's roles). */
const HUMAN = new Set(["human", "user"]);
const AI = new Set(["gpt", "chatgpt", "assistant", "model", "bard", "bing", "claude", "bot"]);
const SYSTEM = new Set(["system"]);
const ACTION = new Set(["function_call", "observation", "tool", "function"]);

/**
 * ShareGPT JSON, the shape chat datasets are shared in (ShareGPT dumps, Vicuna, LLaMA-Factory):
 * an array of conversations, or one conversation, each `{id?, conversations: [{from, value}],
 * system?, tools?, …}` (some dumps call the list `items`). One session per conversation, id from
 * `id` (else its position). `from` is the speaker, kept as the participant's name: human/user a
 * person, gpt/assistant/model… an AI agent, `system` a system turn, function_call/observation
 * action turns; an unknown `from` is a person, with a warning (--agents says otherwise). A
 * top-level `system` prompt is the first, system turn; other keys stay in session metadata.
 */
export const sharegptImporter: Importer = {
  name: "sharegpt",
  description: 'ShareGPT JSON ([{"id", "conversations": [{"from": "human"|"gpt", "value"}]}], Vicuna, LLaMA-Factory)',
  extensions: [".json"],
  input: "file",
  detect(_path, head) {
    return /"(conversations|items)"\s*:\s*\[/.test(head) && /"from"\s*:\s*"/.test(head) && /"value"\s*:\s*"/.test(head) ? 0.93 : 0;
  },
  async parse(input) {
    const file = input.path;
    const root = parseJson(await input.readText(), file);
    const list = Array.isArray(root) ? root : [root];
    const warnings: string[] = [];
    const unknown = new Set<string>();
    const sessions = list.map((raw, i) => {
      const path = Array.isArray(root) ? childPath("$", i) : "$";
      const conversation = expectObject(raw, file, path, EXPECTED);
      const key = Array.isArray(conversation.conversations) ? "conversations" : "items";
      const messages = expectArray(conversation[key], file, childPath(path, key), EXPECTED);
      const id =
        conversation.id === undefined || conversation.id === null
          ? list.length === 1
            ? baseName(file).replace(/\.[^.]*$/, "")
            : `conversation-${i + 1}`
          : idText(conversation.id, file, childPath(path, "id"));
      const metadata: Record<string, unknown> = { source: { file, format: "sharegpt" }, ...rest(conversation, [key, "id", "system"]) };
      const builder = new SessionBuilder(id, undefined, metadata);
      if (typeof conversation.system === "string" && conversation.system !== "") {
        builder.turn({
          speaker: builder.participant("system", { name: "system", kind: "system" }),
          text: conversation.system,
          type: "system",
          metadata: { from: "$.system" },
        });
      }
      messages.forEach((m, j) => {
        const at = childPath(childPath(path, key), j);
        const message = expectObject(m, file, at, 'a message {"from": …, "value": …}');
        const from = expectString(message.from, file, childPath(at, "from"), 'who speaks: "human", "gpt", "system", …');
        const text = message.value === null ? "" : expectString(message.value, file, childPath(at, "value"), "the message text as a string");
        const role = from.toLowerCase();
        if (!HUMAN.has(role) && !AI.has(role) && !SYSTEM.has(role) && !ACTION.has(role)) unknown.add(from);
        const kind: ParticipantKind = AI.has(role) || ACTION.has(role) ? "ai" : SYSTEM.has(role) ? "system" : "human";
        const type: TurnType = SYSTEM.has(role) ? "system" : ACTION.has(role) ? "action" : "message";
        // Tool traffic is the model's (a call) or its tools' (an observation): one "tools" participant.
        const speaker = ACTION.has(role) ? builder.participant("tools", { name: "tools", kind: "ai" }) : builder.participant(from, { name: from, kind });
        builder.turn({ speaker, text, type, metadata: { ...(ACTION.has(role) ? { from } : {}), ...rest(message, ["from", "value"]) } });
      });
      if (messages.length === 0) warnings.push(`${file}: ${childPath(path, key)}: an empty conversation; imported as an empty session`);
      return builder.build();
    });
    if (unknown.size > 0)
      warnings.push(
        `${file}: speaker(s) ${[...unknown].map((u) => `"${u}"`).join(", ")} are not ShareGPT's human/gpt roles; read as people (pass --agents to say otherwise)`,
      );
    const result: ImportResult = { sessions, codes: [], warnings };
    return result;
  },
};
