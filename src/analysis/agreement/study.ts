import type { Codebook } from "../../coding/codebook/schema.js";
import type { CodeValue } from "../../coding/records.js";

/**
 * What `colloquy agree` knows of a codebook: its shape (from its definition, or inferred from the
 * records when no definition can be found), and the coverage account of which turns the coders
 * coded (aligned in ./align.ts).
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

export function shapeFromDefinition(codebook: Codebook): CodebookShape {
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
 * The shape of a codebook no definition could be loaded for, inferred from its records (scores =>
 * scales, else nominal); `problems` say why no definition was used.
 */
export function inferShape(id: string, records: Iterable<CodeValue>, problems: readonly string[]): CodebookShape {
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

/** Whether a record carries something to compare for this codebook shape. */
export function usable(record: CodeValue, shape: CodebookShape): boolean {
  return shape.kind === "nominal" ? (record.codes?.length ?? 0) > 0 : Object.keys(record.scores ?? {}).length > 0;
}

/** The nominal value a record gives: its code, or for multi-coding the sorted set joined by "+". */
export function nominalValue(record: CodeValue): string {
  const codes = [...(record.codes ?? [])].sort();
  return codes.join("+");
}
