import { sha256 } from "../../util/hash.js";
import type { Session, Turn, Participant } from "../../transcript/schema.js";
import type { ChatMessage } from "../../llm/types.js";
import type { Codebook } from "../codebook/schema.js";
import type { ShownExample } from "./examples.js";

/**
 * The LLM coder's prompt: the codebook in the system message (identical for every request of
 * a run, so endpoints with prompt caching reuse it), the turns in the user message.
 * The turns shown are the target turn(s) and `before`/`after` neighbours from the SAME
 * session only: a window is clipped at the session's edges, never filled from another session.
 * Turn text is quoted verbatim (never trimmed, rewritten or summarised).
 */

/** Bump when the wording below changes; its hash goes into every code record's provenance. */
export const PROMPT_TEMPLATE_VERSION = "1";

const ROLE_LINE =
  "You are a trained research assistant coding a transcript of a multi-party conversation between humans and AI agents. Apply the codebook below exactly as written, like a careful human coder would.";
const TARGET_RULE =
  "Code only the turn(s) marked TARGET. The turns marked context are there to help you understand what the target turn does; do not code them.";
const SINGLE_RULE = "Give exactly one code per turn: the category that fits best.";
const MULTIPLE_RULE = "A turn may receive several codes: give every category that applies (at least one).";
const SCALES_RULE = "Rate every scale for every target turn with a whole number between 1 and the scale's number of points, using the anchors.";
const COUNTS_RULE = "Give every count as a whole number of 0 or more.";
const JSON_RULE = "Reply with one JSON object and nothing else (no markdown, no text before or after it). Keep the rationale to one short sentence.";
/** How renderTurnLine lays out a turn (hashed as text so compiled and source builds agree). */
const TURN_LINE_FORMAT = "{TARGET|context} [{turn id}{ type unless message}] {speaker name}: {verbatim text}";
const REASK_TEMPLATE =
  "Your reply could not be used: {error}. Reply again, for the same TARGET turn(s), with one JSON object only, exactly in the required format.";

/** Hash of the template text and version (not of the codebook or the turns): goes into provenance. */
export const PROMPT_TEMPLATE_HASH = sha256(
  [PROMPT_TEMPLATE_VERSION, ROLE_LINE, TARGET_RULE, SINGLE_RULE, MULTIPLE_RULE, SCALES_RULE, COUNTS_RULE, JSON_RULE, REASK_TEMPLATE, TURN_LINE_FORMAT].join(
    "\n",
  ),
).slice(0, 16);

/**
 * Worked examples (--examples): the researchers' codes of similar turns, ahead of the session.
 * Their own hash, so records coded without examples keep PROMPT_TEMPLATE_HASH.
 */
const EXAMPLES_INTRO =
  "Worked examples: turns from other parts of this study, coded by the researchers. They show how the codebook is applied here; do not code them.";
const EXAMPLE_LINE_FORMAT =
  "example {n} [{session} {turn id}] {speaker name}: {verbatim text} / codes: {id} ({label}), ... | ratings: {id} ({label}) = {value}: {anchor}, ...";

/** The template hash of prompts that carry worked examples (the examples themselves are in each request, hence its cache key). */
export const EXAMPLES_TEMPLATE_HASH = sha256([PROMPT_TEMPLATE_HASH, EXAMPLES_INTRO, EXAMPLE_LINE_FORMAT].join("\n")).slice(0, 16);

/** Turns before and after the target(s) to show. */
export interface ContextWindow {
  before: number;
  after: number;
}

/** Parse "2:2" (before:after) or "3" (both). */
export function parseContext(spec: string): ContextWindow {
  const match = /^\s*(\d+)\s*(?::\s*(\d+)\s*)?$/.exec(spec);
  if (!match) throw new Error(`--context must look like 2:2 (turns before:after) or 2, got "${spec}"`);
  const before = Number(match[1]);
  return { before, after: match[2] === undefined ? before : Number(match[2]) };
}

const quote = (text: string) => JSON.stringify(text);

/** The answer shape, in words (the JSON schema says the same for endpoints that support it). */
export function answerShape(codebook: Codebook, batch: boolean): string {
  let item: string;
  if (codebook.kind === "nominal") {
    item = codebook.multiple ? `"codes": ["<category id>", ...], "rationale": "<one sentence>"` : `"code": "<category id>", "rationale": "<one sentence>"`;
  } else {
    const fields = [...codebook.scales.map((s) => `"${s.id}": <1-${s.points}>`), ...codebook.counts.map((c) => `"${c.id}": <count>`)];
    item = `"scores": {${fields.join(", ")}}, "rationale": "<one sentence>"`;
  }
  return batch ? `{"items": [{"turn": "<turn id>", ${item}}, ...]} with one item per TARGET turn` : `{${item}}`;
}

/** System message: instructions plus the whole codebook. Built once per codebook and mode. */
export function buildSystemPrompt(codebook: Codebook, batch: boolean): string {
  const lines = [ROLE_LINE, TARGET_RULE];
  lines.push("", `Codebook: ${codebook.title} (${codebook.id}, version ${codebook.version})`);
  if (codebook.description) lines.push(codebook.description);
  if (codebook.instructions) lines.push(`Instructions: ${codebook.instructions}`);
  if (codebook.kind === "nominal") {
    lines.push(codebook.multiple ? MULTIPLE_RULE : SINGLE_RULE);
    if (codebook.fallback) lines.push(`If no category fits, use "${codebook.fallback}".`);
    lines.push("", "Categories (answer with the id):");
    for (const c of codebook.categories) {
      lines.push(`- id: ${c.id}`, `  label: ${c.label}`, `  definition: ${c.definition}`);
      if (c.examples.length > 0) lines.push(`  examples: ${c.examples.map(quote).join(" | ")}`);
      if (c.counterExamples?.length) lines.push(`  not this: ${c.counterExamples.map(quote).join(" | ")}`);
    }
  } else {
    lines.push(SCALES_RULE, "", "Scales (answer with the id):");
    for (const s of codebook.scales) {
      lines.push(`- id: ${s.id} (1-${s.points})`, `  label: ${s.label}`, `  definition: ${s.definition}`);
      s.anchors.forEach((anchor, i) => lines.push(`  ${i + 1} = ${anchor}`));
    }
    if (codebook.counts.length > 0) {
      lines.push("", COUNTS_RULE, "Counts (answer with the id):");
      for (const c of codebook.counts) lines.push(`- id: ${c.id}`, `  label: ${c.label}`, `  definition: ${c.definition}`);
    }
  }
  lines.push("", `${JSON_RULE} Format: ${answerShape(codebook, batch)}`);
  return lines.join("\n");
}

function describeParticipant(p: Participant | undefined, id: string): string {
  if (!p) return `${id} (unknown participant)`;
  return `${p.name} (${[p.kind, p.role].filter(Boolean).join(", ")})`;
}

/** One turn as the model sees it: marker, id, type when not a plain message, speaker, verbatim text. */
function renderTurnLine(turn: Turn, target: boolean, name: string): string {
  const type = turn.type === "message" ? "" : ` ${turn.type}`;
  return `${target ? "TARGET" : "context"} [${turn.id}${type}] ${name}: ${turn.text}`;
}

/** Indexes of the turns shown for these targets: first-before .. last+after, clipped to the session. */
export function windowRange(session: Session, targets: readonly number[], context: ContextWindow): [number, number] {
  const first = Math.min(...targets);
  const last = Math.max(...targets);
  return [Math.max(0, first - context.before), Math.min(session.turns.length - 1, last + context.after)];
}

/** User message: session, the participants who speak in the window, then the window's turns. */
export function buildUserPrompt(session: Session, targets: readonly number[], context: ContextWindow): string {
  const [from, to] = windowRange(session, targets, context);
  const wanted = new Set(targets);
  const participants = new Map(session.participants.map((p) => [p.id, p]));
  const window = session.turns.slice(from, to + 1);
  const speakers = [...new Set(window.map((t) => t.speaker))];
  const lines = [`Session: ${session.title ? `${session.title} (${session.id})` : session.id}`, "Participants:"];
  for (const id of speakers) lines.push(`- ${describeParticipant(participants.get(id), id)}`);
  lines.push("", targets.length > 1 ? `Turns in order; code the ${targets.length} turns marked TARGET:` : "Turns in order; code the turn marked TARGET:");
  window.forEach((turn, offset) => lines.push(renderTurnLine(turn, wanted.has(from + offset), participants.get(turn.speaker)?.name ?? turn.speaker)));
  return lines.join("\n");
}

/** The worked examples block: each turn verbatim, then the code the researcher gave it. */
export function renderExamples(examples: readonly ShownExample[]): string {
  const lines = [EXAMPLES_INTRO];
  examples.forEach((e, i) => {
    lines.push(`example ${i + 1} [${e.session} ${e.turn}] ${e.speaker}: ${e.text}`);
    if (e.codes) lines.push(`  codes: ${e.codes.map((c) => `${c.id} (${c.label})`).join(", ")}`);
    if (e.ratings) lines.push(`  ratings: ${e.ratings.map((r) => `${r.id} (${r.label}) = ${r.value}${r.anchor ? `: ${r.anchor}` : ""}`).join(", ")}`);
  });
  return lines.join("\n");
}

/**
 * The messages of one coding request. `systemPrompt` is passed in so runs build it once.
 * Worked examples, when given, open the user message (they differ per target, so they are not
 * in the system message that every request shares).
 */
export function buildMessages(
  systemPrompt: string,
  session: Session,
  targets: readonly number[],
  context: ContextWindow,
  examples?: readonly ShownExample[],
): ChatMessage[] {
  const turns = buildUserPrompt(session, targets, context);
  return [
    { role: "system", content: systemPrompt },
    { role: "user", content: examples && examples.length > 0 ? `${renderExamples(examples)}\n\n${turns}` : turns },
  ];
}

/** The follow-up after an unusable reply: the reply itself, then what was wrong with it. */
export function reaskMessages(messages: ChatMessage[], reply: string, error: string): ChatMessage[] {
  return [...messages, { role: "assistant", content: reply }, { role: "user", content: REASK_TEMPLATE.replace("{error}", error) }];
}

/** Rough token estimate (chars / 4), used for --dry-run when no tokenizer is at hand. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  // ~4 characters per token for English text, plus a few tokens of chat framing per message.
  return messages.reduce((n, m) => n + Math.ceil(m.content.length / 4) + 4, 0);
}
