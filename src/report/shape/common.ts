import { summariseRecords, type RecordsSummary } from "../../coding/records.js";
import type { Codebook } from "../../coding/codebook/schema.js";
import { countWords } from "../../analysis/shared/words.js";
import { NO_CONDITION } from "../../analysis/shared/table.js";
import { speakerName } from "../../analysis/stats/participation.js";
import type { Session, Turn } from "../../transcript/schema.js";
import type { CodeSet } from "../load.js";
import type { CategoryInfo, CodebookInfo } from "../types.js";

const wordCounts = new WeakMap<Turn, number>();

/**
 * Words of a turn (src/analysis/shared/words.ts countWords), counted once per turn object: the speaker
 * list, the session summaries and the overview each total them.
 */
export function turnWords(turn: Turn): number {
  let words = wordCounts.get(turn);
  if (words === undefined) wordCounts.set(turn, (words = countWords(turn.text)));
  return words;
}

/** Condition label of a session; sessions without one are grouped as the analyses group them. */
export function conditionOf(session: Session): string {
  return session.metadata.condition ?? NO_CONDITION;
}

/**
 * Study-wide speaker key of each participant of a session: the participant's name, so an agent
 * named "Critic" in every run is one speaker with one colour across charts.
 */
export function speakerKeys(session: Session): Map<string, { key: string; kind: Session["participants"][number]["kind"]; role?: string }> {
  const map = new Map<string, { key: string; kind: Session["participants"][number]["kind"]; role?: string }>();
  for (const p of session.participants) map.set(p.id, { key: speakerName(p), kind: p.kind, role: p.role });
  return map;
}

/** Speaker key of one turn (the raw speaker id when the participant list misses it). */
export function turnSpeaker(session: Session, keys: ReturnType<typeof speakerKeys>, turn: Turn): string {
  return keys.get(turn.speaker)?.key ?? turn.speaker;
}

/** The distinct conditions of the sessions (each session's, in session order), the control first when known. */
export function conditionsOf(sessionConditions: readonly string[], control?: string): string[] {
  const list = [...new Set(sessionConditions)];
  if (control && list.includes(control)) return [control, ...list.filter((c) => c !== control)];
  return list;
}

/** The codes a codebook's records use and the scales they rate (with the highest rating, rounded up), each in the order first met. */
export interface SeenCodes {
  codes: Iterable<string>;
  scales: ReadonlyMap<string, number>;
}

/** What one codebook's code sets use, from each set's summary (summariseRecords), sets in order: as if their records were summarised in that order. */
export function seenIn(summaries: readonly RecordsSummary[]): SeenCodes {
  const codes = new Set<string>();
  const scales = new Map<string, number>();
  for (const summary of summaries) {
    for (const code of summary.codes) codes.add(code);
    for (const [scale, top] of summary.scales) scales.set(scale, Math.max(scales.get(scale) ?? 0, top));
  }
  return { codes, scales };
}

/**
 * What the dashboard needs to know about a codebook: ordered categories with labels and groups.
 * Codes present in the data but missing from the definition are appended (never dropped), so an
 * old code file still shows every code it holds.
 */
export function codebookInfo(id: string, codebook: Codebook | null, sets: CodeSet[]): CodebookInfo {
  const mine = sets.filter((s) => s.codebook === id);
  return describeCodebook(
    id,
    codebook,
    mine.map((s) => s.coder),
    seenIn(mine.map((set) => summariseRecords(set.records))),
  );
}

/** {@link codebookInfo} from its coders and what their records use (seenIn of their summaries: the build has no whole records). */
export function describeCodebook(id: string, codebook: Codebook | null, coders: readonly string[], seen: SeenCodes): CodebookInfo {
  const categories: CategoryInfo[] = [];
  const known = new Set<string>();
  const scales: CodebookInfo["scales"] = [];
  let kind: CodebookInfo["kind"] = "nominal";
  if (codebook?.kind === "nominal") {
    for (const c of codebook.categories) {
      categories.push({ id: c.id, label: c.label, groups: c.groups ?? [] });
      known.add(c.id);
    }
  } else if (codebook?.kind === "scales") {
    kind = "scales";
    for (const s of codebook.scales) scales.push({ id: s.id, label: s.label, points: s.points });
  }
  for (const code of seen.codes) {
    if (!known.has(code)) {
      known.add(code);
      categories.push({ id: code, label: code, groups: [] });
    }
  }
  if (!codebook && seen.scales.size > 0 && categories.length === 0) kind = "scales";
  for (const [scale, max] of seen.scales) {
    if (!scales.some((s) => s.id === scale)) scales.push({ id: scale, label: scale, points: Math.max(max, 2) });
  }
  return {
    id,
    title: codebook?.title ?? id,
    version: codebook?.version,
    kind,
    categories,
    groups: codebook?.kind === "nominal" ? codebook.groups.map((g) => ({ id: g.id, label: g.label, kind: g.kind })) : [],
    scales,
    coders: [...coders].sort(),
    defined: codebook !== null,
  };
}

/** The labels the compare and Bales views join codes under: the codebook's categories, in order. */
export const categoryIds = (info: CodebookInfo): string[] => info.categories.map((c) => c.id);
