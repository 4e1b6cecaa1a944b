import { fnv1a } from "../util/hash.js";
import { z } from "zod";

/**
 * Part of a turn's words that a coder coded (a selection made in a QDA tool such as NVivo): code
 * points from the start of the turn's text, end exclusive, and the codes or ratings given to it.
 */
export const codeSegmentSchema = z.object({
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  codes: z.array(z.string()).optional(),
  scores: z.record(z.string(), z.number()).optional(),
});

export type CodeSegment = z.infer<typeof codeSegmentSchema>;

/**
 * One code record: the code(s) or scale ratings one coder gave one turn under one codebook.
 * Stored as JSONL under `codes/<codebook>/<coder>.jsonl`.
 * Coder ids: "rules", "llm" (or "llm:<label>" when a study compares models), "human:<name>".
 */
export const codeRecordSchema = z.object({
  session: z.string(),
  /** Turn id within the session. */
  turn: z.string(),
  /**
   * Content fingerprint of the turn as the coder saw it (transcript/fingerprint.ts). A record is
   * applied only to a turn with this fingerprint; records written before fingerprints existed
   * have none and are matched by id alone.
   */
  fingerprint: z.string().optional(),
  codebook: z.string(),
  codebookVersion: z.string(),
  coder: z.string(),
  /** Category ids for nominal codebooks (one unless the codebook allows multi-coding). */
  codes: z.array(z.string()).optional(),
  /** Ratings per scale id for ordinal codebooks. */
  scores: z.record(z.string(), z.number()).optional(),
  /**
   * Codings of parts of the turn, when the coder coded ranges rather than the whole turn (an
   * imported QDA project): every coding, each with its range, in the order made. `codes` and
   * `scores` still say what the turn has (the union), which is what per-turn analyses read.
   * Absent (every record Colloquy's coders write, and every file written before): each code
   * applies to the whole turn.
   */
  segments: z.array(codeSegmentSchema).optional(),
  rationale: z.string().optional(),
  /** With --samples N: how many samples and the share that agreed with the stored value. */
  samples: z.object({ n: z.number().int().positive(), agreement: z.number() }).optional(),
  /** How the code was made: model, endpoint host, prompt hash, temperature, rule ids, source file… */
  provenance: z.record(z.string(), z.unknown()).default({}),
  createdAt: z.string(),
});

export type CodeRecord = z.infer<typeof codeRecordSchema>;

/**
 * The lines of a codes file as stored (coding/codes-file.ts describes the compact form): a run
 * header with what one run of a coder shares, one line per turn with the rest, the run's end;
 * or a full record (the only line before the compact form existed).
 */
export const codeRunHeaderSchema = z.object({
  codebook: z.string(),
  codebookVersion: z.string(),
  coder: z.string(),
  createdAt: z.string(),
  provenance: z.record(z.string(), z.unknown()),
});

export const codeLineSchema = codeRecordSchema.omit({ codebook: true, codebookVersion: true, coder: true, provenance: true, createdAt: true }).extend({
  /** Only the provenance keys the run header does not hold. */
  provenance: z.record(z.string(), z.unknown()).optional(),
  /** Milliseconds after the run header's createdAt (absent: the header's time). */
  ms: z.number().int().optional(),
  /** A time not in toISOString form, kept as written. */
  createdAt: z.string().optional(),
});

/** A key the line must not have (what makes the reader take it for another kind of line). */
const absent = z.never().optional();

/** `{"end":n}` closes a run after its n code lines; `{"end":"cut"}` closes one an interrupted write or a repair cut short. */
export const codeRunEndSchema = z.object({ end: z.union([z.number().int().nonnegative(), z.literal("cut")]), run: absent, session: absent });

/**
 * One line of a codes file, told apart the way coding/codes-file.ts reads it (and held to the
 * same verdicts by test/coding/codes-file.test.ts): a line with `run` is a header; else one with
 * `end` and no `session` an end line; else one with `codebook` a full record; else a code line.
 */
export const codesFileLineSchema = z.union([
  z.object({ run: codeRunHeaderSchema }),
  codeRunEndSchema,
  codeRecordSchema.extend({ run: absent }),
  codeLineSchema.extend({ run: absent, codebook: absent }),
]);

export type CodesFileLine = z.infer<typeof codesFileLineSchema>;

/** A turn the coder could not code: kept with the raw reply, never stored as a code. */
export const codeFailureSchema = z.object({
  session: z.string(),
  turn: z.string(),
  codebook: z.string(),
  coder: z.string(),
  reason: z.string(),
  raw: z.string().optional(),
  createdAt: z.string(),
});

export type CodeFailure = z.infer<typeof codeFailureSchema>;

/** Why a code no longer applies to any turn. */
export const staleReasons = ["turn-changed", "turn-removed"] as const;

/**
 * A code whose turn was edited or removed (by a re-import of an edited transcript, or by an edit
 * of the session file). Kept, never applied to another turn: `colloquy sessions --stale` lists
 * them with the words they were attached to. Stored as JSONL beside the coder's codes.
 */
export const staleCodeSchema = z.object({
  record: codeRecordSchema,
  reason: z.enum(staleReasons),
  /** The turn the code was attached to, as it read when the code went stale. */
  attachedTo: z.object({ session: z.string(), turn: z.string(), speaker: z.string().optional(), text: z.string().optional() }),
  /** What made it stale (e.g. "colloquy import transcripts/s1.vtt"). */
  via: z.string(),
  markedAt: z.string(),
});

export type StaleCode = z.infer<typeof staleCodeSchema>;

/** Records grouped by session id, in file order within each session. */
export function recordsBySession(records: readonly CodeRecord[]): Map<string, CodeRecord[]> {
  const out = new Map<string, CodeRecord[]>();
  for (const record of records) {
    const list = out.get(record.session);
    if (list) list.push(record);
    else out.set(record.session, [record]);
  }
  return out;
}

/**
 * What the analyses read of a code record (agreement, compare, stats): where it applies, what it
 * gives, and under which codebook version. A record parsed from a codes file, with its
 * fingerprint, rationale and provenance, takes ~400 bytes; this ~80: the pipeline's stages share
 * these across stages rather than the records (issue 40).
 */
export type CodeValue = Pick<CodeRecord, "session" | "turn" | "codebookVersion" | "codes" | "scores">;

/** A record cut to its {@link CodeValue} (fields it lacks stay absent). */
export function codeValue(record: CodeRecord): CodeValue {
  const value: CodeValue = { session: record.session, turn: record.turn, codebookVersion: record.codebookVersion };
  if (record.codes !== undefined) value.codes = record.codes;
  if (record.scores !== undefined) value.scores = record.scores;
  return value;
}

/** Records per codebook version, in the order first met (RecordsSummary.versions of the same records). */
export function versionCounts(records: Iterable<Pick<CodeRecord, "codebookVersion">>): Map<string, number> {
  const versions = new Map<string, number>();
  for (const r of records) versions.set(r.codebookVersion, (versions.get(r.codebookVersion) ?? 0) + 1);
  return versions;
}

/**
 * What readers count of a list of records (the dashboard's overview and codebook description,
 * compare's and agree's version notes, the kept code digests): each the same way, so that counts
 * taken from kept digests equal those taken from the records. `add` folds more records in.
 */
export interface RecordsSummary {
  /** Codes used, in the order first met. */
  codes: Set<string>;
  /** Scales rated, in the order first met, each with its highest rating rounded up. */
  scales: Map<string, number>;
  /** Codebook versions, in the order first met, each with its number of records. */
  versions: Map<string, number>;
  /** Model names of the records' provenance (only `model` fields, never keys). */
  models: Set<string>;
  /** Earliest and latest createdAt. */
  first?: string;
  last?: string;
  /**
   * The offline coder's validation on the study as its latest record states it (`provenance.validation`),
   * and that record's date.
   */
  validation?: { status?: unknown; kappa?: unknown; at: string };
  /**
   * A learned coder's trainings: each distinct `provenance.trainedCodes` of its records (human coder ->
   * {@link codeValuesDigest} of the codes it learned from). More than one when some sessions were
   * recoded after a new training and the others kept the old one's codes.
   */
  trainings: Set<Readonly<Record<string, string>>>;
  /** People's codes (human:<name>): the {@link codeValuesDigest} of the records, as a sum kept while reading. */
  valuesSum: number;
}

/** Digests of code values are summed modulo 2^48: exact in a double, and a sum ignores the order. */
const DIGEST_MODULUS = 2 ** 48;

/** 48 bits of two FNV-1a hashes of the record's value: ~10 times cheaper than sha256, read for every person's code every run. */
function codeValueHash(r: Pick<CodeRecord, "session" | "turn" | "codes" | "scores">): number {
  const text = JSON.stringify([r.session, r.turn, r.codes ?? null, r.scores ?? null]);
  return (fnv1a(text) >>> 16) * 2 ** 32 + (fnv1a(text, SECOND_SEED) >>> 0);
}

const SECOND_SEED = fnv1a("colloquy code value");

/**
 * What a set of codes says, whatever the order or time they were stored in (a sheet imported again
 * unchanged, or in another row order, gives the same digest): a learned coder records it for each
 * human coder it trained on, so readers can tell its codes were learned from other codes than the
 * study has now.
 */
export function codeValuesDigest(records: Iterable<Pick<CodeRecord, "session" | "turn" | "codes" | "scores">>): string {
  let sum = 0;
  for (const r of records) sum = (sum + codeValueHash(r)) % DIGEST_MODULUS;
  return digestText(sum);
}

const digestText = (sum: number) => sum.toString(16).padStart(12, "0");

/**
 * The human coders whose current codes differ from those a learned coder's codes were learned from
 * (any of its trainings); `digestOf` gives a coder's {@link codeValuesDigest} now, undefined when
 * it has no codes. Empty for other coders, and for learned codes made before trainings were recorded.
 */
export function changedTraining(summary: Pick<RecordsSummary, "trainings">, digestOf: (coder: string) => string | undefined): string[] {
  const changed = new Set<string>();
  for (const training of summary.trainings) for (const [coder, digest] of Object.entries(training)) if (digestOf(coder) !== digest) changed.add(coder);
  return [...changed];
}

/** The {@link codeValuesDigest} of a summarised set of people's codes. */
export const summaryDigest = (summary: Pick<RecordsSummary, "valuesSum">): string => digestText(summary.valuesSum);

export function summariseRecords(records: Iterable<CodeRecord>, into: RecordsSummary = emptySummary()): RecordsSummary {
  for (const r of records) {
    for (const code of r.codes ?? []) into.codes.add(code);
    // for...in, not Object.entries: no array per record (100,000 records per code file at scale).
    const scores = r.scores;
    if (scores) for (const scale in scores) into.scales.set(scale, Math.max(into.scales.get(scale) ?? 0, Math.ceil(scores[scale])));
    into.versions.set(r.codebookVersion, (into.versions.get(r.codebookVersion) ?? 0) + 1);
    if (typeof r.provenance.model === "string") into.models.add(r.provenance.model);
    if (into.first === undefined || r.createdAt < into.first) into.first = r.createdAt;
    if (into.last === undefined || r.createdAt > into.last) into.last = r.createdAt;
    const validation = r.provenance.validation as { status?: unknown; kappa?: unknown } | undefined;
    if (validation && (into.validation === undefined || r.createdAt >= into.validation.at))
      into.validation = { status: validation.status, kappa: validation.kappa, at: r.createdAt };
    // One object per coding run (the run header's provenance is shared by its records): a Set by reference.
    const trained = r.provenance.trainedCodes;
    if (trained && typeof trained === "object" && !Array.isArray(trained)) into.trainings.add(trained as Record<string, string>);
    if (r.coder.startsWith("human:")) into.valuesSum = (into.valuesSum + codeValueHash(r)) % DIGEST_MODULUS;
  }
  return into;
}

/**
 * What a reader keeps of one coder's records once they are read: the values the analyses read,
 * and the summary of the rest (models, dates, validation, the codes and scales used), so the whole
 * records can be let go. The pipeline's context keeps one per coder for the run, so agree, compare,
 * stats and the build parse each codes file once, not the build a second time.
 */
export interface CodeCut {
  values: CodeValue[];
  summary: RecordsSummary;
}

export const cutRecords = (records: readonly CodeRecord[]): CodeCut => ({ values: records.map(codeValue), summary: summariseRecords(records) });

export const emptySummary = (): RecordsSummary => ({
  codes: new Set(),
  scales: new Map(),
  versions: new Map(),
  models: new Set(),
  trainings: new Set(),
  valuesSum: 0,
});
