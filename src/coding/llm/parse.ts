import type { Codebook } from "../codebook/schema.js";

/**
 * Strict reading of a model's reply. The reply must be one JSON object (a single ```json
 * fence around it is tolerated, since local models add one even when told not to); nothing is
 * fished out of prose. Values are checked against the codebook: a nominal code must be a
 * category id (an exact label is mapped to its id), a rating an integer in 1..points for
 * every scale, a count an integer >= 0. Anything else is an error with a message the re-ask
 * can quote back to the model.
 */

/** A validated value for one turn. */
export interface CodeValue {
  codes?: string[];
  scores?: Record<string, number>;
  rationale?: string;
}

export type ParseOutcome = { ok: true; value: CodeValue } | { ok: false; error: string };

const MAX_RATIONALE = 1000;

/** JSON.parse of the reply, after removing surrounding whitespace and one optional code fence. */
export function parseJsonReply(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  let body = text.trim();
  const fence = /^```(?:json|JSON)?\s*\n([\s\S]*?)\n?```$/.exec(body);
  if (fence) body = fence[1].trim();
  if (body === "") return { ok: false, error: "the reply was empty" };
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    return { ok: false, error: `the reply is not valid JSON (${(error as Error).message})` };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Map a model's category answer to a category id: exact id, else exact label. */
function categoryId(codebook: Extract<Codebook, { kind: "nominal" }>, answer: unknown): string | undefined {
  if (typeof answer !== "string") return undefined;
  const byId = codebook.categories.find((c) => c.id === answer);
  if (byId) return byId.id;
  return codebook.categories.find((c) => c.label === answer)?.id;
}

/** Validate one parsed item (an object with code/codes/scores and rationale) against the codebook. */
export function validateItem(codebook: Codebook, item: unknown): ParseOutcome {
  if (!isObject(item)) return { ok: false, error: "expected a JSON object" };
  const rationale = typeof item.rationale === "string" ? item.rationale.slice(0, MAX_RATIONALE) : undefined;
  if (codebook.kind === "nominal") {
    const ids = codebook.categories.map((c) => c.id).join(", ");
    let answers: unknown[];
    if (Array.isArray(item.codes)) answers = item.codes;
    else if ("code" in item) answers = [item.code];
    else return { ok: false, error: `missing "${codebook.multiple ? "codes" : "code"}"` };
    if (answers.length === 0) return { ok: false, error: `"codes" is empty; give at least one of: ${ids}` };
    if (!codebook.multiple && answers.length > 1) return { ok: false, error: `give exactly one code, not ${answers.length}` };
    const codes: string[] = [];
    for (const answer of answers) {
      const id = categoryId(codebook, answer);
      if (!id) return { ok: false, error: `${JSON.stringify(answer)} is not a category of ${codebook.id}; use one of: ${ids}` };
      if (!codes.includes(id)) codes.push(id);
    }
    return { ok: true, value: { codes, rationale } };
  }
  if (!isObject(item.scores)) return { ok: false, error: `missing "scores" object` };
  const scores: Record<string, number> = {};
  const known = new Set([...codebook.scales.map((s) => s.id), ...codebook.counts.map((c) => c.id)]);
  for (const key of Object.keys(item.scores)) {
    if (!known.has(key)) return { ok: false, error: `"${key}" is not a scale of ${codebook.id}; use: ${[...known].join(", ")}` };
  }
  for (const scale of codebook.scales) {
    const value = item.scores[scale.id];
    if (value === undefined) return { ok: false, error: `missing rating for scale "${scale.id}"` };
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > scale.points) {
      return { ok: false, error: `rating for "${scale.id}" must be a whole number from 1 to ${scale.points}, got ${JSON.stringify(value)}` };
    }
    scores[scale.id] = value;
  }
  for (const count of codebook.counts) {
    const value = item.scores[count.id];
    if (value === undefined) return { ok: false, error: `missing count "${count.id}"` };
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      return { ok: false, error: `count "${count.id}" must be a whole number of 0 or more, got ${JSON.stringify(value)}` };
    }
    scores[count.id] = value;
  }
  return { ok: true, value: { scores, rationale } };
}

/** One target turn's reply. */
export function parseReply(codebook: Codebook, text: string): ParseOutcome {
  const json = parseJsonReply(text);
  return json.ok ? validateItem(codebook, json.value) : json;
}

/**
 * A batched reply: `{"items": [{"turn": id, ...}, ...]}`. Returns an outcome per requested
 * turn id; a turn missing from the reply, given twice, or invalid gets an error of its own.
 * Items for turns that were not asked about are an error for the whole reply.
 */
export function parseBatchReply(
  codebook: Codebook,
  text: string,
  turnIds: readonly string[],
): { ok: true; items: Map<string, ParseOutcome> } | { ok: false; error: string } {
  const json = parseJsonReply(text);
  if (!json.ok) return json;
  const items = isObject(json.value) ? json.value.items : undefined;
  if (!Array.isArray(items)) return { ok: false, error: `expected {"items": [...]} with one item per TARGET turn` };
  const wanted = new Set(turnIds);
  const out = new Map<string, ParseOutcome>();
  const seen = new Set<string>();
  for (const item of items) {
    const turn = isObject(item) ? item.turn : undefined;
    if (typeof turn !== "string" || !wanted.has(turn)) {
      return { ok: false, error: `item for ${JSON.stringify(turn)} is not one of the TARGET turns (${turnIds.join(", ")})` };
    }
    if (seen.has(turn)) {
      out.set(turn, { ok: false, error: `turn ${turn} was answered more than once` });
      continue;
    }
    seen.add(turn);
    out.set(turn, validateItem(codebook, item));
  }
  for (const id of turnIds) if (!out.has(id)) out.set(id, { ok: false, error: `no item for TARGET turn ${id}` });
  return { ok: true, items: out };
}
