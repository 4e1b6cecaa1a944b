import type { Codebook } from "./codebook/schema.js";

/**
 * The layout of a coding sheet (one row per turn to code, filled in a spreadsheet by people)
 * and of its legend. `colloquy sheet` writes it and `colloquy codes import` reads it back, so the
 * column names are spelled here once.
 */

/** Columns that name the turn a row codes. */
export const SHEET_KEY_COLUMNS = { session: "session", turn: "turn", index: "index", fingerprint: "fingerprint" } as const;

/**
 * A turn's fingerprint as a sheet cell: `'` first, so a spreadsheet keeps it as text. Excel reads
 * an all-digit fingerprint as a number (`1234567890123456` -> 1.23457E+15) and `12e45…` as one in
 * scientific notation, and saves it back so; that row could never be matched to its turn again.
 */
export function fingerprintCell(fingerprint: string): string {
  return `'${fingerprint}`;
}

/** A fingerprint cell as read back: trimmed, with or without the `'` (a program may drop it). */
export function fingerprintOfCell(cell: string | undefined): string {
  return (cell ?? "").trim().replace(/^'/, "");
}

/** "human:alice" -> "alice" (the part people recognise). */
export function coderName(coder: string): string {
  return coder.startsWith("human:") ? coder.slice("human:".length) : coder;
}

/** "alice" or "human:alice" -> "human:alice". Codes imported from sheets are human codes. */
export function humanCoderId(coder: string): string {
  const id = coder.includes(":") ? coder : `human:${coder}`;
  if (!id.startsWith("human:") || id.length === "human:".length) {
    throw new Error(`coder "${coder}": codes filled in by people are stored as human:<name> (e.g. human:alice)`);
  }
  return id;
}

/**
 * The code column(s) of one coder: `code_alice` for a nominal codebook, one column per scale
 * (`code_alice_sentiment`, …) for a scales codebook; `code` / `code_<scale>` when the sheet is
 * for nobody in particular.
 */
export function codeColumns(codebook: Codebook, coder: string | undefined): { column: string; scale?: string }[] {
  const base = coder === undefined ? "code" : `code_${coderName(coder)}`;
  if (codebook.kind === "nominal") return [{ column: base }];
  return codebook.scales.map((s) => ({ column: `${base}_${s.id}`, scale: s.id }));
}

/** Columns of the legend file. */
export const LEGEND_COLUMNS = ["kind", "id", "point", "label", "definition", "examples"] as const;

/**
 * The codebook as rows a coder reads beside the sheet: the codebook itself (with how to fill a
 * cell), then every category (id, label, definition, examples, aliases), or every scale with one
 * row per anchor.
 */
export function legendRows(codebook: Codebook): string[][] {
  const how =
    codebook.kind === "nominal"
      ? `Write one code per turn${codebook.multiple ? " or several separated by ;" : ""}: its id or its label. Leave a cell empty to skip the turn.`
      : "Write a whole number from 1 to the scale's points (or its anchor text) in each scale's column. Leave a cell empty to skip.";
  const shown =
    "A cell of the sheet that began with =, +, -, @, a tab or a line break starts with an added ' so the spreadsheet shows it as text instead of running it as a formula.";
  const rows: string[][] = [["codebook", codebook.id, codebook.version, codebook.title, [codebook.instructions, how, shown].filter(Boolean).join("\n"), ""]];
  if (codebook.kind === "nominal") {
    for (const c of codebook.categories) {
      const aliases = c.aliases?.length ? `\nAlso accepted: ${c.aliases.join(", ")}` : "";
      rows.push(["category", c.id, "", c.label, c.definition + aliases, c.examples.join("\n")]);
    }
  } else {
    for (const s of codebook.scales) {
      rows.push(["scale", s.id, `1-${s.points}`, s.label, s.definition, ""]);
      s.anchors.forEach((anchor, i) => rows.push(["anchor", s.id, String(i + 1), anchor, "", ""]));
    }
  }
  return rows;
}

/** `sheet.csv` -> `sheet.legend.csv` (the legend is written next to the sheet). */
export function legendPath(sheet: string): string {
  return sheet.replace(/\.(csv|tsv|txt)$/i, "") + ".legend.csv";
}
