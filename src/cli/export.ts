import type { Command } from "commander";
import Papa from "papaparse";
import { listCoders } from "../coding/store.js";
import { diskReader } from "../study/reader.js";
import type { CodeRecord } from "../coding/records.js";
import { TURN_COLUMNS, turnRows } from "../ingest/table.js";
import { loadSessions } from "../study/study.js";
import { CliError } from "../util/errors.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { provenance } from "../util/provenance.js";
import { io } from "./io.js";

interface ExportFlags {
  format: string;
  out?: string;
  codes?: boolean;
  what: string;
  excel?: boolean;
}

/** A code record's value as one cell: category ids joined by ";" or "scale=rating" pairs. */
function codeCell(record: CodeRecord): string {
  if (record.codes) return record.codes.join(";");
  return Object.entries(record.scores ?? {}).map(([k, v]) => `${k}=${v}`).join(";");
}

/** Every code that applies to its turn now; stale ones are listed by `colloquy sessions --stale`. */
async function allCodes(dir: string): Promise<CodeRecord[]> {
  const reader = diskReader(dir);
  const out: CodeRecord[] = [];
  for (const [codebook, coders] of Object.entries(await listCoders(dir))) {
    for (const coder of coders) out.push(...(await reader.codes(codebook, coder)));
  }
  return out;
}

/** Rows of code records (one per turn x codebook x coder), scale ratings as one column each. */
function codeRows(records: CodeRecord[], sessions: Map<string, { condition: string; run: string }>): Record<string, string | number>[] {
  const scales = [...new Set(records.flatMap((r) => Object.keys(r.scores ?? {})))].sort();
  return records.map((r) => {
    const row: Record<string, string | number> = {
      session: r.session,
      condition: sessions.get(r.session)?.condition ?? "",
      run: sessions.get(r.session)?.run ?? "",
      turn: r.turn,
      codebook: r.codebook,
      codebook_version: r.codebookVersion,
      coder: r.coder,
      codes: (r.codes ?? []).join(";"),
    };
    for (const s of scales) row[`score_${s}`] = r.scores?.[s] ?? "";
    row.rationale = r.rationale ?? "";
    row.created_at = r.createdAt;
    return row;
  });
}

/** `colloquy export <study>`: turns (or code records) as CSV or JSONL for R, SPSS and Excel. */
export function registerExport(program: Command): void {
  program
    .command("export")
    .description("export one row per turn (or per code record) as CSV or JSONL")
    .argument("<study>", "study folder")
    .option("--format <format>", "csv or jsonl", "csv")
    .option("--out <file>", "write to a file (default: stdout); a <file>.provenance.json is written next to it")
    .option("--what <rows>", "turns (one row per turn) or codes (one row per code record)", "turns")
    .option("--codes", "turns: add one column per codebook and coder with each turn's code(s)")
    .option("--excel", "csv: start with a UTF-8 byte-order mark so Excel reads accents correctly (texts are written verbatim: a cell starting with = + - @ is a formula to Excel; import the file as text if transcripts may contain such turns)")
    .action(async (dir: string, flags: ExportFlags) => {
      if (flags.format !== "csv" && flags.format !== "jsonl") throw new CliError(`--format "${flags.format}": expected csv or jsonl`);
      if (flags.what !== "turns" && flags.what !== "codes") throw new CliError(`--what "${flags.what}": expected turns or codes`);
      const sessions = await loadSessions(dir);
      let rows: Record<string, string | number>[];
      let columns: string[];
      if (flags.what === "codes") {
        const meta = new Map(sessions.map((s) => [s.id, { condition: s.metadata.condition ?? "", run: s.metadata.run ?? "" }]));
        rows = codeRows(await allCodes(dir), meta);
        columns = rows[0] ? Object.keys(rows[0]) : ["session", "condition", "run", "turn", "codebook", "codebook_version", "coder", "codes", "rationale", "created_at"];
      } else {
        const codeColumns = new Map<string, Map<string, string>>();
        if (flags.codes) {
          for (const record of await allCodes(dir)) {
            const column = `${record.codebook}:${record.coder}`;
            if (!codeColumns.has(column)) codeColumns.set(column, new Map());
            codeColumns.get(column)!.set(`${record.session}\u0000${record.turn}`, codeCell(record));
          }
        }
        const names = [...codeColumns.keys()].sort();
        rows = turnRows(sessions, (session, turn) => Object.fromEntries(names.map((n) => [n, codeColumns.get(n)!.get(`${session.id}\u0000${turn}`) ?? ""])));
        columns = [...TURN_COLUMNS, ...names];
      }
      const body =
        flags.format === "csv"
          ? (flags.excel ? "\uFEFF" : "") + Papa.unparse({ fields: columns, data: rows.map((r) => columns.map((c) => r[c] ?? "")) }, { newline: "\r\n" }) + "\r\n"
          : rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");
      if (!flags.out) {
        io().out(body);
        return;
      }
      await writeFileAtomic(flags.out, body);
      await writeJsonAtomic(`${flags.out}.provenance.json`, provenance({ command: "export", study: dir, what: flags.what, format: flags.format, rows: rows.length, columns }));
      io().out(`Wrote ${rows.length} ${flags.what === "codes" ? "code record" : "turn"} row(s) to ${flags.out}`);
    });
}
