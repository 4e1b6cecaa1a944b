import type { Codebook } from "../coding/codebook/schema.js";
import { loadStudyCodebook } from "../coding/codebook/load.js";
import type { CodeRecord } from "../coding/records.js";
import { timeSpan } from "../analysis/shared/measures.js";
import { countWords } from "../analysis/shared/words.js";
import { TURN_COLUMNS, turnRows } from "../ingest/table.js";
import type { Session } from "../transcript/schema.js";
import type { StudyContext } from "./context.js";
import { codesBy, coderLabel, plainLabel } from "../report/glossary.js";
import { currentCodes } from "./qda-export.js";

/**
 * The tables `colloquy export` writes for R, SPSS, Stata, Excel and pandas, each with its data
 * dictionary (column, type, meaning, allowed values): turns; code records in long format (one row
 * per turn x codebook x coder); codes in wide format (one row per turn, a column per coder and
 * scale); and summaries per participant and per session.
 */

export const tableKinds = ["turns", "codes", "wide", "participants", "sessions"] as const;
export type TableKind = (typeof tableKinds)[number];

export type ColumnType = "string" | "integer" | "number" | "boolean";
export type Cell = string | number | boolean | null;

/** One column of a table, as its data dictionary describes it. */
export interface Column {
  name: string;
  type: ColumnType;
  meaning: string;
  /** Allowed values or range, when the column has a closed set. */
  allowed?: string;
  /** The column in plain words, when the glossary cannot tell it from the name (codebook x coder columns). */
  label?: string;
}

export interface Table {
  columns: Column[];
  rows: Record<string, Cell>[];
}

const col = (name: string, type: ColumnType, meaning: string, allowed?: string): Column => ({ name, type, meaning, ...(allowed ? { allowed } : {}) });

const TURN_DICTIONARY: Record<(typeof TURN_COLUMNS)[number], Column> = {
  session: col("session", "string", "session id (file name under sessions/)"),
  condition: col("condition", "string", "experimental condition of the session (empty when none)"),
  run: col("run", "string", "run of the session within its condition (empty when none)"),
  turn: col("turn", "string", "turn id within the session (code records point at it)"),
  index: col("index", "integer", "0-based position of the turn in its session", ">= 0"),
  speaker: col("speaker", "string", "speaker's display name, verbatim from the source"),
  speaker_id: col("speaker_id", "string", "participant id of the speaker within the session"),
  role: col("role", "string", "speaker's role when the source gives one"),
  kind: col("kind", "string", "who the speaker is", "human, ai, system"),
  time: col("time", "string", "seconds from session start when known, else the source's verbatim time stamp"),
  timestamp: col("timestamp", "string", "the source's own time stamp, verbatim"),
  end: col("end", "string", "seconds from session start at which the turn ends, when known"),
  type: col("type", "string", "kind of turn", "message, backchannel, interruption, system, file, reasoning, action"),
  text: col("text", "string", "the words exactly as the source has them"),
};

/** Codebooks of the records, loaded once (a codebook the study can no longer load is left out). */
async function codebooksOf(context: StudyContext, records: readonly CodeRecord[]): Promise<Map<string, Codebook>> {
  const out = new Map<string, Codebook>();
  for (const id of new Set(records.map((r) => r.codebook))) {
    const book = await loadStudyCodebook(context.dir, id).catch(() => undefined);
    if (book) out.set(id, book);
  }
  return out;
}

/** Per codebook x coder (sorted): its measures, as columns of a wide or summary table. */
function coderKeys(records: readonly CodeRecord[]): { codebook: string; coder: string }[] {
  const keys = new Map<string, { codebook: string; coder: string }>();
  for (const r of records) keys.set(`${r.codebook}:${r.coder}`, { codebook: r.codebook, coder: r.coder });
  return [...keys.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, k]) => k);
}

function scalesOf(book: Codebook | undefined, records: readonly CodeRecord[], key: { codebook: string; coder: string }): { id: string; points?: number }[] {
  if (book?.kind === "scales") return book.scales.map((s) => ({ id: s.id, points: s.points }));
  const ids = new Set(records.filter((r) => r.codebook === key.codebook && r.coder === key.coder).flatMap((r) => Object.keys(r.scores ?? {})));
  return [...ids].sort().map((id) => ({ id }));
}

const isNominal = (book: Codebook | undefined, records: readonly CodeRecord[], key: { codebook: string; coder: string }) =>
  book ? book.kind === "nominal" : records.some((r) => r.codebook === key.codebook && r.coder === key.coder && r.codes);

export async function buildTable(context: StudyContext, what: TableKind, options: { codes?: boolean } = {}): Promise<Table> {
  const sessions = await context.sessions();
  const records = what === "turns" && !options.codes ? [] : await currentCodes(context);
  const books = await codebooksOf(context, records);
  switch (what) {
    case "turns":
      return turnsTable(sessions, records);
    case "codes":
      return longTable(sessions, records, books);
    case "wide":
      return wideTable(sessions, records, books);
    case "participants":
    case "sessions":
      return summaryTable(what, sessions, records, books);
  }
}

/** One row per turn; with codes, a column per codebook and coder holding the turn's code(s) or "scale=rating" pairs. */
function turnsTable(sessions: readonly Session[], records: readonly CodeRecord[]): Table {
  const cells = new Map<string, Map<string, string>>();
  for (const r of records) {
    const name = `${r.codebook}:${r.coder}`;
    if (!cells.has(name)) cells.set(name, new Map());
    cells.get(name)!.set(
      `${r.session}\u0000${r.turn}`,
      r.codes
        ? r.codes.join(";")
        : Object.entries(r.scores ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(";"),
    );
  }
  const names = [...cells.keys()].sort();
  const rows: Record<string, Cell>[] = dictionaryTyped(
    turnRows(sessions, (session, turn) => Object.fromEntries(names.map((n) => [n, cells.get(n)!.get(`${session.id}\u0000${turn}`) ?? ""]))),
  );
  // When a person's words reached a live session, how long they took, and whether the session had ended by then.
  const turns = sessions.flatMap((s) => s.turns);
  rows.forEach((row, i) => {
    const meta = turns[i].metadata;
    row.received_at = typeof meta?.receivedAt === "string" ? meta.receivedAt : "";
    row.latency_s = typeof meta?.latencySeconds === "number" ? meta.latencySeconds : null;
    row.late = meta?.late === true;
  });
  return {
    columns: [
      ...TURN_COLUMNS.map((c) => TURN_DICTIONARY[c]),
      col("received_at", "string", "when a person's words reached a live session (ISO 8601, wall clock); empty for other turns"),
      col("latency_s", "number", "seconds the person took: from their prompt, or from the last turn said before their words came (live sessions)", ">= 0"),
      col("late", "boolean", "the person's words came after the session stopped taking them (stored at its end, after their last prompt)"),
      ...names.map((n) => {
        const [codebook, coder] = [n.split(":")[0], n.split(":").slice(1).join(":")];
        return {
          ...col(n, "string", `code(s) of coder ${coder} under codebook ${codebook}: category ids joined by ";" or scale=rating pairs; empty when not coded`),
          label: codesBy(coder, codebook),
        };
      }),
    ],
    rows,
  };
}

/** Long format: one row per code record (turn x codebook x coder), one column per scale. */
function longTable(sessions: readonly Session[], records: readonly CodeRecord[], books: Map<string, Codebook>): Table {
  const meta = new Map(sessions.map((s) => [s.id, s]));
  const scales = [...new Set(records.flatMap((r) => Object.keys(r.scores ?? {})))].sort();
  const categories = [...books.values()].flatMap((b) => (b.kind === "nominal" ? b.categories.map((c) => c.id) : []));
  const columns = [
    col("session", "string", "session id"),
    col("condition", "string", "experimental condition of the session"),
    col("run", "string", "run of the session"),
    col("turn", "string", "turn id within the session"),
    col("index", "integer", "0-based position of the turn in its session", ">= 0"),
    col("codebook", "string", "codebook id", [...new Set(records.map((r) => r.codebook))].sort().join(", ")),
    col("codebook_version", "string", "codebook version the code was made with"),
    col(
      "coder",
      "string",
      "coder id: rules, learned, llm or llm:<label> (programs), human:<name> (people)",
      [...new Set(records.map((r) => r.coder))].sort().join(", "),
    ),
    col("codes", "string", 'nominal codebooks: category id(s), several joined by ";"', [...new Set(categories)].join(", ")),
    ...scales.map((s) =>
      col(`score_${s}`, "integer", `rating on scale ${s}; empty when the codebook has no such scale`, `1..${scalePoints(books, s) ?? "points"}`),
    ),
    col("rationale", "string", "the coder's reason, when it gave one"),
    col("created_at", "string", "when the code was made (ISO 8601)"),
    col(
      "cost_usd",
      "number",
      "LLM coder: this code's share of what its requests cost in USD; 0 from the cache; empty when the price is unknown or the coder is not an LLM",
      ">= 0",
    ),
  ];
  const rows = records.map((r) => {
    const session = meta.get(r.session);
    const row: Record<string, Cell> = {
      session: r.session,
      condition: session?.metadata.condition ?? "",
      run: session?.metadata.run ?? "",
      turn: r.turn,
      index: session?.turns.find((t) => t.id === r.turn)?.index ?? null,
      codebook: r.codebook,
      codebook_version: r.codebookVersion,
      coder: r.coder,
      codes: (r.codes ?? []).join(";"),
    };
    for (const s of scales) row[`score_${s}`] = r.scores?.[s] ?? null;
    row.rationale = r.rationale ?? "";
    row.created_at = r.createdAt;
    row.cost_usd = costOf(r);
    return row;
  });
  return { columns, rows };
}

/** An LLM code's share of what was paid for it (provenance.spent, src/coding/llm/coder.ts). */
function costOf(r: CodeRecord): number | null {
  if (!r.coder.startsWith("llm")) return null;
  const spent = r.provenance.spent as { cost?: number } | undefined;
  if (spent === undefined) return r.provenance.cached === true ? 0 : null;
  return spent.cost ?? null;
}

function scalePoints(books: Map<string, Codebook>, scale: string): number | undefined {
  for (const b of books.values()) if (b.kind === "scales") for (const s of b.scales) if (s.id === scale) return s.points;
  return undefined;
}

/**
 * Turn rows with `time` as the dictionary types it, text (seconds from the start, or a source's
 * verbatim stamp), so JSONL, CSV and Parquet give the same column the same type.
 */
function dictionaryTyped<T extends { time?: unknown }>(rows: T[]): T[] {
  return rows.map((row) => (typeof row.time === "number" ? { ...row, time: String(row.time) } : row));
}

/** Wide format: one row per turn, a column per nominal codebook x coder and per scale x coder. */
function wideTable(sessions: readonly Session[], records: readonly CodeRecord[], books: Map<string, Codebook>): Table {
  const byTurn = new Map(records.map((r) => [`${r.codebook}\u0000${r.coder}\u0000${r.session}\u0000${r.turn}`, r]));
  const measures: { column: Column; key: { codebook: string; coder: string }; value: (r: CodeRecord | undefined) => Cell }[] = [];
  for (const key of coderKeys(records)) {
    const book = books.get(key.codebook);
    if (isNominal(book, records, key)) {
      const allowed = book?.kind === "nominal" ? book.categories.map((c) => c.id).join(", ") : undefined;
      measures.push({
        key,
        column: {
          ...col(
            `${key.codebook}:${key.coder}`,
            "string",
            `category id(s) coder ${key.coder} gave the turn under ${key.codebook} (several joined by ";"); empty when not coded`,
            allowed,
          ),
          label: codesBy(key.coder, key.codebook),
        },
        value: (r) => r?.codes?.join(";") ?? "",
      });
    }
    for (const scale of scalesOf(book, records, key)) {
      measures.push({
        key,
        column: {
          ...col(
            `${key.codebook}:${key.coder}:${scale.id}`,
            "integer",
            `rating coder ${key.coder} gave the turn on scale ${scale.id} of ${key.codebook}; empty when not rated`,
            scale.points ? `1..${scale.points}` : undefined,
          ),
          label: `${plainLabel(scale.id)} ratings by ${coderLabel(key.coder)} (${key.codebook})`,
        },
        value: (r) => r?.scores?.[scale.id] ?? null,
      });
    }
  }
  const rows = dictionaryTyped(turnRows(sessions)).map((row) => {
    const out: Record<string, Cell> = { ...row };
    for (const m of measures) out[m.column.name] = m.value(byTurn.get(`${m.key.codebook}\u0000${m.key.coder}\u0000${row.session}\u0000${row.turn}`));
    return out;
  });
  return { columns: [...TURN_COLUMNS.map((c) => TURN_DICTIONARY[c]), ...measures.map((x) => x.column)], rows };
}

/** Per participant (or per session): talk, and codes counted per category or ratings averaged per scale. */
function summaryTable(what: "participants" | "sessions", sessions: readonly Session[], records: readonly CodeRecord[], books: Map<string, Codebook>): Table {
  const perParticipant = what === "participants";
  const speakerOf = new Map(sessions.flatMap((s) => s.turns.map((t) => [`${s.id}\u0000${t.id}`, t.speaker] as const)));
  const unitOf = (session: string, speaker: string) => (perParticipant ? `${session}\u0000${speaker}` : session);
  const measures: Column[] = [];
  const values = new Map<string, Map<string, number[]>>();
  const add = (unit: string, column: string, value: number) => {
    if (!values.has(unit)) values.set(unit, new Map());
    const cell = values.get(unit)!;
    cell.set(column, [...(cell.get(column) ?? []), value]);
  };
  for (const key of coderKeys(records)) {
    const book = books.get(key.codebook);
    if (isNominal(book, records, key) && book?.kind === "nominal") {
      for (const c of book.categories)
        measures.push({
          ...col(
            `${key.codebook}:${key.coder}:${c.id}`,
            "integer",
            `turns coder ${key.coder} coded "${c.label}" (${key.codebook}); empty when the coder coded none of the ${perParticipant ? "participant's" : "session's"} turns`,
            ">= 0",
          ),
          label: `turns coded "${c.label}" by ${coderLabel(key.coder)} (${key.codebook})`,
        });
    }
    for (const scale of scalesOf(book, records, key))
      measures.push({
        ...col(
          `${key.codebook}:${key.coder}:${scale.id}:mean`,
          "number",
          `mean rating coder ${key.coder} gave on scale ${scale.id} of ${key.codebook}; empty when no turn was rated`,
          scale.points ? `1..${scale.points}` : undefined,
        ),
        label: `mean ${plainLabel(scale.id)} rating by ${coderLabel(key.coder)} (${key.codebook})`,
      });
  }
  // Units (sessions or participants) each coder coded at least one turn of: a count of 0 means
  // "coded, never this category" only there; elsewhere the count is empty (not coded).
  const coded = new Set<string>();
  for (const r of records) {
    const speaker = speakerOf.get(`${r.session}\u0000${r.turn}`);
    if (speaker === undefined) continue;
    const unit = unitOf(r.session, speaker);
    coded.add(`${unit}\u0000${r.codebook}:${r.coder}`);
    for (const c of r.codes ?? []) add(unit, `${r.codebook}:${r.coder}:${c}`, 1);
    for (const [scale, v] of Object.entries(r.scores ?? {})) add(unit, `${r.codebook}:${r.coder}:${scale}:mean`, v);
  }
  const measureCells = (unit: string): Record<string, Cell> =>
    Object.fromEntries(
      measures.map((m) => {
        const list = values.get(unit)?.get(m.name) ?? [];
        if (m.type !== "integer") return [m.name, list.length ? list.reduce((a, b) => a + b, 0) / list.length : null];
        const coder = m.name.slice(0, m.name.lastIndexOf(":"));
        return [m.name, coded.has(`${unit}\u0000${coder}`) ? list.length : null];
      }),
    );
  const head = [
    col("session", "string", "session id"),
    col("condition", "string", "experimental condition of the session"),
    col("run", "string", "run of the session"),
  ];
  if (perParticipant) {
    const columns = [
      ...head,
      col("participant", "string", "participant id within the session"),
      col("name", "string", "participant's display name"),
      col("role", "string", "participant's role when known"),
      col("kind", "string", "who the participant is", "human, ai, simulated (a person played by a model), system"),
      col("turns", "integer", "turns the participant took", ">= 0"),
      col("words", "integer", "words the participant said (Colloquy's one word rule, src/analysis/shared/words.ts, as in stats)", ">= 0"),
      col("share_of_turns", "number", "the participant's turns / the session's turns", "0..1"),
      col("share_of_words", "number", "the participant's words / the session's words", "0..1"),
      ...measures,
    ];
    const rows = sessions.flatMap((s) => {
      const totalWords = s.turns.reduce((n, t) => n + countWords(t.text), 0);
      return s.participants.map((p) => {
        const own = s.turns.filter((t) => t.speaker === p.id);
        const words = own.reduce((n, t) => n + countWords(t.text), 0);
        return {
          session: s.id,
          condition: s.metadata.condition ?? "",
          run: s.metadata.run ?? "",
          participant: p.id,
          name: p.name,
          role: p.role ?? "",
          kind: p.kind,
          turns: own.length,
          words,
          share_of_turns: s.turns.length ? own.length / s.turns.length : null,
          share_of_words: totalWords ? words / totalWords : null,
          ...measureCells(unitOf(s.id, p.id)),
        };
      });
    });
    return { columns, rows };
  }
  const columns = [
    ...head,
    col("task", "string", "task of the session when known"),
    col("turns", "integer", "turns in the session", ">= 0"),
    col("participants", "integer", "participants in the session", ">= 0"),
    col("humans", "integer", "participants who are people", ">= 0"),
    col("ais", "integer", "participants who are AI agents", ">= 0"),
    col("words", "integer", "words in the session (Colloquy's one word rule, src/analysis/shared/words.ts, as in stats)", ">= 0"),
    col(
      "duration_s",
      "number",
      "seconds from the first timed turn's start to the last one's end (or start); empty when no turn is timed or the span is zero",
      "> 0",
    ),
    ...measures,
  ];
  const rows = sessions.map((s) => {
    return {
      session: s.id,
      condition: s.metadata.condition ?? "",
      run: s.metadata.run ?? "",
      task: s.metadata.task ?? "",
      turns: s.turns.length,
      participants: s.participants.length,
      humans: s.participants.filter((p) => p.kind === "human").length,
      ais: s.participants.filter((p) => p.kind === "ai").length,
      words: s.turns.reduce((n, t) => n + countWords(t.text), 0),
      // The one duration rule (stats, concepts): null when no turn is timed or the span is zero.
      duration_s: timeSpan(s.turns).seconds,
      ...measureCells(s.id),
    };
  });
  return { columns, rows };
}
