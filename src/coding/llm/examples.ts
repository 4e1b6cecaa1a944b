import type { Session } from "../../transcript/schema.js";
import type { Codebook } from "../codebook/schema.js";
import type { CodeRecord } from "../records.js";

/**
 * Few-shot examples for the LLM coder, taken from the researchers' own codes: for each request,
 * the `shots` human-coded turns most similar in wording to the target turn(s), shown with their
 * codes (nominal: category id and label; scales: rating with its anchor; counts: the number).
 *
 * Similarity is the cosine of word TF-IDF vectors (lower-cased words, sublinear tf, smoothed idf
 * fitted on the example pool only; terms unknown to the pool are ignored). Small and exact: no
 * hashing, no randomness. Ties (equal scores, e.g. no shared word at all) are broken by session id,
 * then turn position, so the same study and options always show the same examples.
 *
 * Never shown: a target turn of the request itself, and with `excludeSession` any turn of the
 * target's session (for honest evaluation against the same people's codes). With a batch of
 * targets the query is the union of the targets' words (one example set per request).
 */

interface ExampleCode {
  id: string;
  label: string;
}

interface ExampleRating {
  id: string;
  label: string;
  value: number;
  /** The scale point's anchor (scales only; counts have none). */
  anchor?: string;
}

/** One worked example as the prompt shows it. */
export interface ShownExample {
  session: string;
  turn: string;
  /** The coder whose code is shown ("human:alice"). */
  coder: string;
  speaker: string;
  text: string;
  codes?: ExampleCode[];
  ratings?: ExampleRating[];
  /** Cosine similarity to the target(s), 0..1. */
  similarity: number;
}

export interface ExamplePicker {
  /** The examples for one request: at most `shots`, most similar first. */
  pick(session: Session, targets: readonly number[]): ShownExample[];
  /** Human-coded turns available as examples. */
  readonly poolSize: number;
  /** Settings for provenance. */
  readonly settings: { examplesFrom: string[]; shots: number; excludeSession: boolean };
}

interface ExamplePickerOptions {
  codebook: Codebook;
  /** Every session of the study (examples may come from sessions not being coded). */
  sessions: readonly Session[];
  /** Records per coder, in the order given: a turn coded by several is shown with the first one's code. */
  records: ReadonlyArray<{ coder: string; records: readonly CodeRecord[] }>;
  shots: number;
  excludeSession?: boolean;
}

const wordPattern = /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu;

function words(text: string): string[] {
  return (text.toLowerCase().replace(/’/g, "'").match(wordPattern) ?? []) as string[];
}

function termCounts(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of tokens) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/** Sublinear tf x idf, L2-normalised; terms without an idf (unknown to the pool) are dropped. */
function vector(counts: Map<string, number>, idf: Map<string, number>): Map<string, number> {
  const v = new Map<string, number>();
  let norm = 0;
  for (const [term, tf] of counts) {
    const w = idf.get(term);
    if (w === undefined) continue;
    const x = (1 + Math.log(tf)) * w;
    v.set(term, x);
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (const [term, x] of v) v.set(term, x / norm);
  return v;
}

interface PoolItem extends Omit<ShownExample, "similarity"> {
  /** Session order, then turn index: the tie-break. */
  order: number;
}

/** The code a record gives, by label (and anchor), or undefined when it names nothing of this codebook. */
function describe(codebook: Codebook, record: CodeRecord): Pick<ShownExample, "codes" | "ratings"> | undefined {
  if (codebook.kind === "nominal") {
    const byId = new Map(codebook.categories.map((c) => [c.id, c]));
    const codes = record.codes ?? [];
    // A code the codebook no longer has would teach the model an answer it cannot give.
    if (codes.length === 0 || codes.some((c) => !byId.has(c))) return undefined;
    return { codes: codes.map((c) => ({ id: c, label: byId.get(c)!.label })) };
  }
  const ratings: ExampleRating[] = [];
  for (const s of codebook.scales) {
    const value = record.scores?.[s.id];
    if (value !== undefined) ratings.push({ id: s.id, label: s.label, value, anchor: s.anchors[Math.round(value) - 1] });
  }
  for (const c of codebook.counts) {
    const value = record.scores?.[c.id];
    if (value !== undefined) ratings.push({ id: c.id, label: c.label, value });
  }
  return ratings.length > 0 ? { ratings } : undefined;
}

export function createExamplePicker(options: ExamplePickerOptions): ExamplePicker {
  const { codebook, shots } = options;
  const excludeSession = options.excludeSession ?? false;
  const sessionIndex = new Map(options.sessions.map((s, i) => [s.id, i]));
  const bySession = new Map(options.sessions.map((s) => [s.id, s]));
  const items: PoolItem[] = [];
  const seen = new Set<string>();
  for (const { coder, records } of options.records) {
    for (const record of records) {
      const key = `${record.session}\u0000${record.turn}`;
      const session = bySession.get(record.session);
      const index = session?.turns.findIndex((t) => t.id === record.turn) ?? -1;
      if (!session || index < 0 || seen.has(key)) continue;
      const code = describe(codebook, record);
      if (!code) continue;
      seen.add(key);
      const turn = session.turns[index];
      const speaker = session.participants.find((p) => p.id === turn.speaker)?.name ?? turn.speaker;
      items.push({ session: session.id, turn: turn.id, coder, speaker, text: turn.text, ...code, order: sessionIndex.get(session.id)! * 1e7 + index });
    }
  }
  items.sort((a, b) => a.order - b.order);

  const counts = items.map((item) => termCounts(words(item.text)));
  const df = new Map<string, number>();
  for (const c of counts) for (const term of c.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const n = items.length;
  const idf = new Map([...df].map(([term, d]) => [term, Math.log((1 + n) / (1 + d)) + 1]));
  // Inverted index: only items sharing a word with the query get a score above 0.
  const postings = new Map<string, { item: number; weight: number }[]>();
  counts.forEach((c, item) => {
    for (const [term, weight] of vector(c, idf)) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push({ item, weight });
    }
  });

  function pick(session: Session, targets: readonly number[]): ShownExample[] {
    const targetIds = new Set(targets.map((i) => session.turns[i].id));
    const allowed = (item: PoolItem) => (excludeSession ? item.session !== session.id : !(item.session === session.id && targetIds.has(item.turn)));
    const query = vector(termCounts(targets.flatMap((i) => words(session.turns[i].text))), idf);
    const score = new Float64Array(n);
    for (const [term, q] of query) for (const { item, weight } of postings.get(term) ?? []) score[item] += q * weight;
    const ranked: number[] = [];
    for (let i = 0; i < n; i++) if (allowed(items[i])) ranked.push(i);
    // Items are in tie-break order already; a stable sort keeps it among equal scores.
    ranked.sort((a, b) => score[b] - score[a]);
    return ranked.slice(0, shots).map((i) => {
      const { order: _order, ...item } = items[i];
      return { ...item, similarity: Math.round(score[i] * 1e6) / 1e6 };
    });
  }

  return { pick, poolSize: n, settings: { examplesFrom: options.records.map((r) => r.coder), shots, excludeSession } };
}
