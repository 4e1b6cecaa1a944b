import Papa from "papaparse";
import type { CodeRecord } from "../../coding/records.js";
import { CliError } from "../../util/errors.js";
import { topicsFiles } from "./descriptor.js";
import type { ReviewedTree, TopicsReport, TreeResult } from "./report.js";

/**
 * Human review of topic trees. `colloquy topics export` writes one CSV row per sub-topic of each
 * (merged) tree with empty reviewer columns; reviewers fill in `judgement` (keep / merge /
 * rename / reject), `merge_into` (the id of the sub-topic or main topic it merges into),
 * `new_label` (for rename) and `reviewer`. `colloquy topics import` validates the files,
 * stores each judgement as a code record (codebook "topic-review", coder "human:<reviewer>",
 * `turn` = the sub-topic id) so `colloquy agree --codebook topic-review` measures the
 * reviewers' agreement, and applies the judgements: the reviewed tree keeps sub-topics judged
 * keep or rename, drops those judged merge or reject (their ideas live on in another topic or
 * were not topics), and so gives a reviewed branching ratio. With several reviewers the
 * majority judgement decides; ties go to the gentlest (keep, rename, merge, reject).
 * Sub-topics nobody judged count as kept.
 */
export const REVIEW_CODEBOOK = "topic-review";
export const REVIEW_CODEBOOK_VERSION = "1";
export const JUDGEMENTS = ["keep", "merge", "rename", "reject"] as const;
export type Judgement = (typeof JUDGEMENTS)[number];

export const REVIEW_COLUMNS = [
  "session",
  "condition",
  "participant",
  "main_topic_id",
  "main_topic",
  "subtopic_id",
  "subtopic",
  "turns",
  "judgement",
  "merge_into",
  "new_label",
  "reviewer",
] as const;

/** Labels come from a model or the rules: keep each CSV row on one line. */
const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, " ");

/** The review sheet: one row per sub-topic of each tree's merged tree. */
export function reviewCsv(report: TopicsReport): string {
  const rows: string[][] = [];
  for (const tree of report.trees) {
    for (const main of tree.merged?.mainTopics ?? []) {
      for (const sub of main.subtopics) {
        rows.push([
          tree.session,
          tree.condition,
          tree.participant ?? "",
          main.id,
          oneLine(main.label),
          sub.id,
          oneLine(sub.label),
          sub.turns.join(" "),
          "",
          "",
          "",
          "",
        ]);
      }
    }
  }
  return Papa.unparse({ fields: [...REVIEW_COLUMNS], data: rows }, { newline: "\n" }) + "\n";
}

/** Parse reviewers' sheets (each file's name and text) into code records; every problem is reported as file:line. */
export function parseReviewSheets(sheets: readonly { file: string; text: string }[], report: TopicsReport): { records: CodeRecord[]; unreviewed: number } {
  const ids = new Map<string, { subtopics: Set<string>; topics: Set<string> }>();
  for (const tree of report.trees) {
    const entry = ids.get(tree.session) ?? { subtopics: new Set<string>(), topics: new Set<string>() };
    for (const main of tree.merged?.mainTopics ?? []) {
      entry.topics.add(main.id);
      for (const sub of main.subtopics) {
        entry.subtopics.add(sub.id);
        entry.topics.add(sub.id);
      }
    }
    ids.set(tree.session, entry);
  }
  const errors: string[] = [];
  const records: CodeRecord[] = [];
  let unreviewed = 0;
  const createdAt = new Date().toISOString();
  for (const { file, text } of sheets) {
    const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ""), { header: true, skipEmptyLines: "greedy" });
    const header = parsed.meta.fields ?? [];
    const missing = ["session", "subtopic_id", "judgement", "merge_into", "new_label", "reviewer"].filter((c) => !header.includes(c));
    if (missing.length > 0) {
      errors.push(`${file}:1: missing column(s) ${missing.join(", ")}; start from the sheet \`colloquy topics export\` writes`);
      continue;
    }
    // Line numbers: header is line 1; rows never span lines (export writes one line per row).
    const lines = text.split(/\r?\n/);
    let lineNo = 1;
    for (const row of parsed.data) {
      lineNo++;
      while (lineNo <= lines.length && lines[lineNo - 1].trim() === "") lineNo++;
      const where = `${file}:${lineNo}`;
      const judgement = (row.judgement ?? "").trim().toLowerCase();
      if (judgement === "") {
        unreviewed++;
        continue;
      }
      const session = (row.session ?? "").trim();
      const subtopic = (row.subtopic_id ?? "").trim();
      const reviewer = (row.reviewer ?? "").trim();
      const mergeInto = (row.merge_into ?? "").trim();
      const newLabel = (row.new_label ?? "").trim();
      if (!(JUDGEMENTS as readonly string[]).includes(judgement)) {
        errors.push(`${where}: judgement "${row.judgement}" is not one of ${JUDGEMENTS.join(", ")}`);
        continue;
      }
      const known = ids.get(session);
      if (!known) {
        errors.push(`${where}: session "${session}" is not in ${topicsFiles.topics.relative()}; export the sheet again`);
        continue;
      }
      if (!known.subtopics.has(subtopic)) {
        errors.push(
          `${where}: no sub-topic "${subtopic}" in session "${session}" of ${topicsFiles.topics.relative()} (topics were re-extracted? export the sheet again)`,
        );
        continue;
      }
      if (reviewer === "") {
        errors.push(`${where}: reviewer is empty; write the reviewer's name`);
        continue;
      }
      if (judgement === "merge" && (mergeInto === "" || mergeInto === subtopic || !known.topics.has(mergeInto))) {
        errors.push(
          `${where}: judgement "merge" needs merge_into = the id of another topic of session "${session}"${mergeInto ? ` (got "${mergeInto}")` : ""}`,
        );
        continue;
      }
      if (judgement === "rename" && newLabel === "") {
        errors.push(`${where}: judgement "rename" needs a new_label`);
        continue;
      }
      records.push({
        session,
        turn: subtopic,
        codebook: REVIEW_CODEBOOK,
        codebookVersion: REVIEW_CODEBOOK_VERSION,
        coder: `human:${reviewer}`,
        codes: [judgement],
        provenance: {
          source: file,
          line: lineNo,
          ...(judgement === "merge" ? { mergeInto } : {}),
          ...(judgement === "rename" ? { newLabel } : {}),
          topics: { coder: report.provenance.coder, createdAt: report.provenance.createdAt },
        },
        createdAt,
      });
    }
  }
  if (errors.length > 0) throw new CliError(`review sheet problems (nothing was imported):\n  ${errors.join("\n  ")}`);
  const seen = new Map<string, string>();
  for (const r of records) {
    const key = `${r.coder}\u0000${r.session}\u0000${r.turn}`;
    const at = `${r.provenance.source}:${r.provenance.line}`;
    if (seen.has(key)) throw new CliError(`${at}: ${r.coder} already judged sub-topic "${r.turn}" of session "${r.session}" at ${seen.get(key)}; keep one row`);
    seen.set(key, at);
  }
  return { records, unreviewed };
}

const GENTLENESS: Judgement[] = ["keep", "rename", "merge", "reject"];

function reviewTree(tree: TreeResult, records: readonly CodeRecord[]): ReviewedTree | undefined {
  if (!tree.merged) return undefined;
  const subIds = new Set(tree.merged.mainTopics.flatMap((m) => m.subtopics.map((s) => s.id)));
  const mine = records.filter((r) => r.session === tree.session && subIds.has(r.turn));
  if (mine.length === 0) return undefined;
  const decisions: ReviewedTree["decisions"] = {};
  for (const id of subIds) {
    const votes = mine.filter((r) => r.turn === id);
    if (votes.length === 0) continue;
    const counts = new Map<Judgement, number>();
    for (const v of votes) counts.set(v.codes![0] as Judgement, (counts.get(v.codes![0] as Judgement) ?? 0) + 1);
    const judgement = GENTLENESS.reduce((best, j) => ((counts.get(j) ?? 0) > (counts.get(best) ?? 0) ? j : best), GENTLENESS[0]);
    const winner = votes.find((v) => v.codes![0] === judgement)!;
    decisions[id] = {
      judgement,
      votes: counts.get(judgement) ?? 0,
      ...(typeof winner.provenance.mergeInto === "string" ? { mergeInto: winner.provenance.mergeInto } : {}),
      ...(typeof winner.provenance.newLabel === "string" ? { newLabel: winner.provenance.newLabel } : {}),
    };
  }
  const dropped = Object.values(decisions).filter((d) => d.judgement === "merge" || d.judgement === "reject").length;
  const mainTopics = tree.merged.mainTopicCount;
  const subtopics = tree.merged.subtopicCount - dropped;
  return {
    reviewers: [...new Set(mine.map((r) => r.coder))].sort(),
    decisions,
    mainTopics,
    subtopics,
    branchingRatio: mainTopics === 0 ? null : subtopics / mainTopics,
  };
}

/** Attach reviewed trees (from every reviewer's records) to the report's trees. */
export function applyReviews(report: TopicsReport, records: readonly CodeRecord[]): void {
  for (const tree of report.trees) {
    const reviewed = reviewTree(tree, records);
    if (reviewed) tree.reviewed = reviewed;
    else delete tree.reviewed;
  }
}
