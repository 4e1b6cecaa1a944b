import { loadCodebook } from "../../coding/codebook/load.js";
import type { Codebook } from "../../coding/codebook/schema.js";
import type { CodeRecord } from "../../coding/records.js";
import { codesPath, listCoders } from "../../coding/store.js";
import { diskReader, type StudyReader } from "../../study/reader.js";
import { loadStudyConfig, studyPaths } from "../../study/study.js";
import { CliError, errorMessage } from "../../util/errors.js";

/**
 * Loading side of `colloquy agree` for a study: the codebook's shape (from its definition, or
 * inferred from the records when no definition can be found), the code records of each coder,
 * and the coverage account of which turns they coded (aligned in ./parts.ts).
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
export async function resolveCodebookShape(study: string, id: string, records: Iterable<CodeRecord>): Promise<CodebookShape> {
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

/** "no codes from coder …": a coder named without a record of the codebook, with the coders and codebooks there are. */
export function noCodes(study: string, codebook: string, coder: string, available: Record<string, string[]>): CliError {
  const here = available[codebook];
  return new CliError(
    `no codes from coder "${coder}" for codebook "${codebook}" (${codesPath(study, codebook, coder)} is missing or empty). ` +
      (here ? `Coders with codes for ${codebook}: ${here.join(", ")}.` : `Codebooks with codes in this study: ${Object.keys(available).join(", ") || "none"}.`),
  );
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
    if (records.length === 0) throw noCodes(study, codebook, coder, await listCoders(study));
    out.set(coder, records);
  }
  return out;
}

/** Whether a record carries something to compare for this codebook shape. */
export function usable(record: CodeRecord, shape: CodebookShape): boolean {
  return shape.kind === "nominal" ? (record.codes?.length ?? 0) > 0 : Object.keys(record.scores ?? {}).length > 0;
}

/** The nominal value a record gives: its code, or for multi-coding the sorted set joined by "+". */
export function nominalValue(record: CodeRecord): string {
  const codes = [...(record.codes ?? [])].sort();
  return codes.join("+");
}
