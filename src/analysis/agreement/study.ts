import { loadCodebook } from "../../coding/codebook/load.js";
import type { Codebook } from "../../coding/codebook/schema.js";
import type { CodeRecord } from "../../coding/records.js";
import { codesPath, listCoders } from "../../coding/store.js";
import { diskReader, type StudyReader } from "../../study/reader.js";
import { loadStudyConfig, studyPaths } from "../../study/study.js";
import { CliError, errorMessage } from "../../util/errors.js";

/**
 * Loading side of `colloquy agree` for a study: the codebook's shape (from its definition, or
 * inferred from the records when no definition can be found) and the code records of each
 * coder aligned by (session, turn), with an account of every turn not coded by all coders.
 */

/** What the analysis needs to know about the codebook. */
export interface CodebookShape {
  id: string;
  kind: "nominal" | "scales";
  /** Version in the definition (null when inferred). */
  version: string | null;
  /** "loaded": from the codebook file; "inferred": from the records (no definition found). */
  definition: "loaded" | "inferred";
  /** Why no definition was used, when inferred. */
  note?: string;
  /** Nominal: category ids in codebook order. */
  categories?: string[];
  multiple?: boolean;
  /** Scales: id and number of points (points unknown when inferred). */
  scales?: { id: string; points?: number }[];
}

/** One coded unit with each coder's record (absent coders missing from the map). */
export interface AlignedUnit {
  session: string;
  turn: string;
  records: Map<string, CodeRecord>;
}

/** How the named coders' codes overlap. */
export interface Coverage {
  /** Units coded (with a usable value) by every named coder: the ones analysed. */
  unitsCodedByAll: number;
  /** Units coded by at least one named coder. */
  unitsCodedByAny: number;
  /** Usable records per coder. */
  perCoder: Record<string, number>;
  /** Units left out because some coders did not code them, grouped by who did. */
  partial: { codedBy: string[]; missing: string[]; units: number }[];
  /** The left-out units themselves (first 1000). */
  partialUnits: { session: string; turn: string; codedBy: string[] }[];
  partialUnitsTruncated: boolean;
  /** Records that carry neither codes nor scores (counted per coder, never analysed). */
  emptyRecords: Record<string, number>;
}

const PARTIAL_LIST_LIMIT = 1000;

function shapeFromDefinition(codebook: Codebook): CodebookShape {
  if (codebook.kind === "nominal") {
    return {
      id: codebook.id,
      kind: "nominal",
      version: codebook.version,
      definition: "loaded",
      categories: codebook.categories.map((c) => c.id),
      multiple: codebook.multiple,
    };
  }
  return {
    id: codebook.id,
    kind: "scales",
    version: codebook.version,
    definition: "loaded",
    scales: codebook.scales.map((s) => ({ id: s.id, points: s.points })),
  };
}

/**
 * Find the codebook definition: a plan in colloquy.json whose codebook has this id, else a
 * shipped codebook / file of that name. When none can be loaded, infer the shape from the
 * records (scores => scales, else nominal) so agreement still runs, and say so.
 */
export async function resolveCodebookShape(study: string, id: string, records: readonly CodeRecord[]): Promise<CodebookShape> {
  const problems: string[] = [];
  const root = studyPaths(study).root;
  try {
    const config = await loadStudyConfig(study);
    for (const plan of config.codebooks) {
      try {
        const codebook = await loadCodebook(plan.codebook, root);
        if (codebook.id === id) return shapeFromDefinition(codebook);
      } catch (error) {
        problems.push(`${plan.codebook}: ${errorMessage(error)}`);
      }
    }
  } catch (error) {
    problems.push(errorMessage(error));
  }
  try {
    const codebook = await loadCodebook(id, root);
    if (codebook.id === id) return shapeFromDefinition(codebook);
    problems.push(`${id} loads a codebook with id "${codebook.id}"`);
  } catch (error) {
    problems.push(errorMessage(error));
  }
  const scaleIds = new Set<string>();
  let withCodes = 0;
  let multiple = false;
  for (const r of records) {
    for (const key of Object.keys(r.scores ?? {})) scaleIds.add(key);
    if (r.codes && r.codes.length > 0) withCodes++;
    if (r.codes && r.codes.length > 1) multiple = true;
  }
  const note = `no definition of codebook "${id}" could be loaded (${problems.join("; ") || "not in colloquy.json"}); its shape was inferred from the code records`;
  if (scaleIds.size > 0 && withCodes === 0) {
    return { id, kind: "scales", version: null, definition: "inferred", note, scales: [...scaleIds].sort().map((s) => ({ id: s })) };
  }
  return { id, kind: "nominal", version: null, definition: "inferred", note, multiple };
}

/** Read the named coders' records, failing clearly when a coder has none. */
export async function readCoderRecords(
  study: string,
  codebook: string,
  coders: readonly string[],
  reader: StudyReader = diskReader(study),
): Promise<Map<string, CodeRecord[]>> {
  const out = new Map<string, CodeRecord[]>();
  for (const coder of coders) {
    const records = await reader.codes(codebook, coder);
    if (records.length === 0) {
      const available = await listCoders(study);
      const here = available[codebook];
      throw new CliError(
        `no codes from coder "${coder}" for codebook "${codebook}" (${codesPath(study, codebook, coder)} is missing or empty). ` +
          (here
            ? `Coders with codes for ${codebook}: ${here.join(", ")}.`
            : `Codebooks with codes in this study: ${Object.keys(available).join(", ") || "none"}.`),
      );
    }
    out.set(coder, records);
  }
  return out;
}

/** Whether a record carries something to compare for this codebook shape. */
export function usable(record: CodeRecord, shape: CodebookShape): boolean {
  return shape.kind === "nominal" ? (record.codes?.length ?? 0) > 0 : Object.keys(record.scores ?? {}).length > 0;
}

/**
 * The order of `localeCompare(…, undefined, { numeric: true })`, from one collator: calling
 * localeCompare with options builds a collator per call, seconds over a large study's units.
 */
const byNumber = new Intl.Collator(undefined, { numeric: true });

/** Align records by (session, turn): units coded by all coders, and the coverage account. */
export function alignUnits(
  recordsByCoder: ReadonlyMap<string, readonly CodeRecord[]>,
  coders: readonly string[],
  shape: CodebookShape,
): { complete: AlignedUnit[]; coverage: Coverage } {
  const units = new Map<string, AlignedUnit>();
  const perCoder: Record<string, number> = {};
  const emptyRecords: Record<string, number> = {};
  for (const coder of coders) {
    perCoder[coder] = 0;
    emptyRecords[coder] = 0;
    for (const record of recordsByCoder.get(coder) ?? []) {
      if (!usable(record, shape)) {
        emptyRecords[coder]++;
        continue;
      }
      perCoder[coder]++;
      const key = `${record.session}\u0000${record.turn}`;
      let unit = units.get(key);
      if (!unit) units.set(key, (unit = { session: record.session, turn: record.turn, records: new Map() }));
      unit.records.set(coder, record);
    }
  }
  const sorted = [...units.values()].sort((x, y) => byNumber.compare(x.session, y.session) || byNumber.compare(x.turn, y.turn));
  const complete: AlignedUnit[] = [];
  const groups = new Map<string, { codedBy: string[]; missing: string[]; units: number }>();
  const partialUnits: Coverage["partialUnits"] = [];
  let partialCount = 0;
  for (const unit of sorted) {
    if (unit.records.size === coders.length) {
      complete.push(unit);
      continue;
    }
    const codedBy = coders.filter((c) => unit.records.has(c));
    const missing = coders.filter((c) => !unit.records.has(c));
    const key = codedBy.join("\u0000");
    const group = groups.get(key) ?? { codedBy, missing, units: 0 };
    group.units++;
    groups.set(key, group);
    partialCount++;
    if (partialUnits.length < PARTIAL_LIST_LIMIT) partialUnits.push({ session: unit.session, turn: unit.turn, codedBy });
  }
  return {
    complete,
    coverage: {
      unitsCodedByAll: complete.length,
      unitsCodedByAny: sorted.length,
      perCoder,
      partial: [...groups.values()].sort((a, b) => b.units - a.units),
      partialUnits,
      partialUnitsTruncated: partialCount > partialUnits.length,
      emptyRecords,
    },
  };
}

/** The nominal value a record gives: its code, or for multi-coding the sorted set joined by "+". */
export function nominalValue(record: CodeRecord): string {
  const codes = [...(record.codes ?? [])].sort();
  return codes.join("+");
}
