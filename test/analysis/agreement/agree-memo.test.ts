import { describe, expect, it } from "vitest";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CodeRecord } from "../../../src/coding/records.js";
import type { Session } from "../../../src/transcript/schema.js";
import { agreeStudy, writeAgreement, type AgreementReport } from "../../../src/analysis/agreement/agree.js";
import { alignPart, partCoverage, turnLookup } from "../../../src/analysis/agreement/parts.js";
import type { CodebookShape } from "../../../src/analysis/agreement/study.js";
import { memoryReporter } from "../../../src/util/reporter.js";
import { lineText } from "../../../src/util/json-layout.js";

/**
 * agree's per-session path (issue 11) orders sessions with a numeric collator, which ranks "s2"
 * before "s10" and "s1" equal to "s01", "s001" and "s１" (full-width digit). The report after
 * sessions are added must be byte for byte the one computed from scratch, whatever the ids.
 */

const coders = ["rules", "human:a", "human:b"];
const categories = ["x", "y", "z"];

function sessionOf(id: string, turns: string[]): Session {
  return {
    id,
    participants: [{ id: "p1", name: "Ada" }],
    metadata: {},
    turns: turns.map((t, i) => ({ id: t, speaker: "p1", text: `${id} turn ${i}` })),
  } as unknown as Session;
}

/**
 * Deterministic records, each session's from its id alone (so adding a session leaves the others'
 * records as they were), interleaved across sessions in file order (turn by turn), so that
 * sessions the collator ranks equal would mix their units in a whole-study sort.
 */
function recordsOf(sessions: Session[]): Map<string, CodeRecord[]> {
  const out = new Map<string, CodeRecord[]>(coders.map((c) => [c, []]));
  const perSession = sessions.map((session) => {
    let state = [...session.id].reduce((h, ch) => (h * 31 + ch.codePointAt(0)!) % 2147483647, 11) || 1;
    // Park-Miller: the products stay exact in a double.
    const next = (n: number) => ((state = (state * 48271) % 2147483647), state % n);
    return session.turns.map((turn) =>
      coders.flatMap((coder): CodeRecord[] =>
        coder !== "rules" && next(4) === 0
          ? []
          : [
              {
                session: session.id,
                turn: turn.id,
                codebook: "cb",
                codebookVersion: "1",
                coder,
                provenance: {},
                createdAt: "2026-01-01T00:00:00.000Z",
                codes: [categories[next(3)]],
              },
            ],
      ),
    );
  });
  const most = Math.max(...perSession.map((turns) => turns.length));
  for (let t = 0; t < most; t++) for (const turns of perSession) for (const r of turns[t] ?? []) out.get(r.coder)!.push(r);
  return out;
}

/** The report as writeAgreement writes it (JSON, NaN as null), without its creation time. */
const written = (report: AgreementReport) => JSON.stringify({ ...report, provenance: { ...report.provenance, createdAt: "" } }, null, 2);

async function agree(dir: string, sessions: Session[], options: { cache: boolean; listed?: Session[] }) {
  const records = recordsOf(sessions);
  const reporter = memoryReporter();
  const listed = options.listed ?? sessions;
  const report = await agreeStudy({
    study: dir,
    codebook: "cb",
    coders,
    bootstrap: 50,
    cache: options.cache,
    reporter,
    reader: { sessions: async () => listed, codes: async (_codebook, coder) => records.get(coder) ?? [] },
  });
  return { report, json: written(report), log: reporter.lines.join("\n"), records };
}

/**
 * The incremental (memo) run, a run without the memo and the whole-study alignment agree byte
 * for byte. The whole study: agree aligns every record at once when the study lists a session
 * id twice (the same session again here, so the turns looked up are the same), and its
 * coverage and disagreements are checked against alignPart over all records too.
 */
async function expectSame(dir: string, sessions: Session[]) {
  const incremental = await agree(dir, sessions, { cache: true });
  expect(incremental.json).toBe((await agree(dir, sessions, { cache: false })).json);
  expect(incremental.json).toBe((await agree(dir, sessions, { cache: false, listed: [...sessions, sessions[0]] })).json);
  const whole = alignPart(incremental.records, coders, incremental.report.codebook as CodebookShape, turnLookup(sessions));
  expect(incremental.report.coverage).toEqual(partCoverage(whole, coders));
  expect(incremental.report.disagreements.total).toBe(whole.disagreements.count);
  expect(incremental.report.disagreements.rows).toEqual(JSON.parse(`[${whole.disagreements.json.map(lineText).join(",")}]`));
  return incremental;
}

describe("agree: the per-session (memo) path equals the whole-study computation for ids a numeric collator ranks equal", () => {
  const turns = (n: number, extra: string[] = []) => [...Array.from({ length: n }, (_, i) => `t${i}`), ...extra];

  it("s1/s01/s001/s１ and s2/s10, as sessions are added and removed, and turns t1/t01 within a session", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-agree-memo-"));
    const base = [sessionOf("s10", turns(30)), sessionOf("s2", turns(30, ["t01", "t001"])), sessionOf("s1", turns(30)), sessionOf("s3", turns(30))];

    const first = await expectSame(dir, base);
    expect(first.log).not.toContain("reused");
    // Numeric order: s2 before s10.
    const order = [...new Set(first.report.disagreements.rows.map((r) => r.session))];
    expect(order.indexOf("s2")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf("s2")).toBeLessThan(order.indexOf("s10"));

    // Sessions the collator ranks equal to ones already memoised.
    for (const tie of ["s01", "s001", "s\uff11", "s\u00ad1", "s002"]) await expectSame(dir, [...base, sessionOf(tie, turns(30))]);
    await expectSame(dir, [...base, sessionOf("s01", turns(30)), sessionOf("s002", turns(25)), sessionOf("s0010", turns(20))]);

    // Without the ties again: the memoised sessions are reused, the new one analysed.
    const added = await expectSame(dir, [...base, sessionOf("s20", turns(30))]);
    expect(added.log).toContain("(1 analysed, 4 reused");
  });

  it("writes the disagreements kept as text (one per line in the JSON, and the CSV) as it writes them from the rows", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-agree-texts-"));
    const sessions = [sessionOf("s1", turns(30)), sessionOf("s2", turns(30)), sessionOf("s10", turns(30))];
    // A turn text the CSV must quote, and one JSON must escape.
    for (const turn of sessions[0].turns) turn.text = `she said "no", then\nleft — =SUM(1) ${turn.id}`;
    const { report } = await agree(dir, sessions, { cache: true });
    expect(report.disagreements.total).toBeGreaterThan(10);
    const fromTexts = await writeAgreement(dir, report);
    const json = await readFile(fromTexts.json, "utf8");
    const csv = await readFile(fromTexts.csv, "utf8");
    // The same report with its rows as objects (no kept text): the writer lays them out itself.
    const plain = { ...report, disagreements: { total: report.disagreements.total, rows: [...report.disagreements.rows] } };
    const other = await mkdtemp(join(tmpdir(), "colloquy-agree-rows-"));
    const fromRows = await writeAgreement(other, plain);
    expect(await readFile(fromRows.json, "utf8")).toBe(json);
    expect(await readFile(fromRows.csv, "utf8")).toBe(csv);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(report)));
    // One disagreement per line, and the CSV's header and one row per disagreement (a quoted line break aside).
    expect(json.split("\n").filter((l) => l.startsWith('      {"session":'))).toHaveLength(report.disagreements.total);
    expect(csv).toMatch(/\ns1,t\d+,Ada,codes,[xyz],[xyz],[xyz],"she said ""no"", then\nleft — =SUM\(1\) t\d+"\n/);
  });
});
