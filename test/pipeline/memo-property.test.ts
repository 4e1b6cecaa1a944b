import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { appendCodes, readCodes } from "../../src/coding/store.js";
import type { Session } from "../../src/transcript/schema.js";

/**
 * Issue 33: whatever the study's history, a run that reuses the memo (.cache/memo, the pipeline
 * state) writes exactly what a run from scratch on the same data writes. Random sequences of
 * edits to a ~1,000-turn study (the demo study's sessions, each three more times under new ids):
 * add, edit or remove a session, add human codes, change a setting; after each, the memoised
 * study's outputs (analysis files and the dashboard's data) are compared with those of a copy
 * without anything derived (times and the study's path masked).
 */

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

async function grownDemo(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-memo-prop-")), "study");
  // No inbox/: a copy without the pipeline's state would import its files again.
  await cp(demo, dir, { recursive: true, filter: (path) => path !== join(demo, "inbox") });
  for (const session of await loadSessions(dir)) {
    for (let k = 1; k <= 3; k++) await saveSession(dir, { ...session, id: `${session.id}-x${k}`, metadata: { ...session.metadata, run: `x${k}` } });
  }
  return dir;
}

async function study(dir: string): Promise<void> {
  const run = await runCli(["study", dir, "--json"]);
  expect(run.code, run.stderr).toBe(0);
}

/** Every analysis file and the dashboard's data, with creation times and the study's path masked. */
async function outputs(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const mask = (text: string) =>
    text
      .replaceAll(dir, "<study>")
      // Files a skipped stage left name the folder the study was copied from.
      .replace(/("study": ?)"\/tmp\/[^"]*"/g, '$1"<study>"')
      .replace(/"createdAt": ?"[^"]*"/g, '"createdAt":"<time>"')
      .replace(/"importedAt": ?"[^"]*"/g, '"importedAt":"<time>"');
  for (const name of (await readdir(join(dir, "analysis"))).sort()) out[`analysis/${name}`] = mask(await readFile(join(dir, "analysis", name), "utf8"));
  // The current build's index (the build before's files stay beside it for a tab still open on it).
  const html = await readFile(join(dir, "site", "index.html"), "utf8").catch(() => "");
  const index = /<meta name="colloquy-data" content="([^"]+)">/.exec(html)?.[1];
  if (index) {
    const text = await readFile(join(dir, "site", index), "utf8");
    // The index names each view's file by its hash, which a masked time in it changes: each view is compared by its id.
    out["site/data"] = mask(text).replace(/(views\/[a-z]+)\.[0-9a-f]{12}\.json/g, "$1.json");
    for (const file of Object.values(JSON.parse(text).views as Record<string, string>))
      out[`site/views/${file.split("/")[1].split(".")[0]}`] = mask(await readFile(join(dir, "site", file), "utf8"));
  }
  return out;
}

type Edit =
  | { kind: "add"; from: number; id: number }
  | { kind: "edit"; which: number; turn: number }
  | { kind: "remove"; which: number }
  | { kind: "codes"; which: number; code: number }
  | { kind: "setting"; value: number };

const edits: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), from: fc.nat(100), id: fc.nat(1000) }),
  fc.record({ kind: fc.constant("edit" as const), which: fc.nat(100), turn: fc.nat(100) }),
  fc.record({ kind: fc.constant("remove" as const), which: fc.nat(100) }),
  fc.record({ kind: fc.constant("codes" as const), which: fc.nat(100), code: fc.nat(11) }),
  fc.record({ kind: fc.constant("setting" as const), value: fc.nat(2) }),
);

const BALES = ["shows-solidarity", "shows-tension-release", "agrees", "gives-suggestion", "gives-opinion", "gives-orientation"];

async function apply(dir: string, edit: Edit): Promise<void> {
  const sessions: Session[] = await loadSessions(dir);
  const pick = (n: number) => sessions[n % sessions.length];
  if (edit.kind === "add") {
    const from = pick(edit.from);
    await saveSession(dir, { ...from, id: `added-${edit.id}`, metadata: { ...from.metadata, run: `a${edit.id}` } });
  } else if (edit.kind === "edit") {
    const s = structuredClone(pick(edit.which));
    s.turns[edit.turn % s.turns.length].text += " (edited)";
    await saveSession(dir, s);
  } else if (edit.kind === "remove") {
    if (sessions.length > 4) await rm(join(dir, "sessions", `${pick(edit.which).id}.json`));
  } else if (edit.kind === "codes") {
    const s = pick(edit.which);
    const [template] = await readCodes(dir, "bales-ipa", "human:coder-a");
    const turns = s.turns.slice(0, 5);
    await appendCodes(
      dir,
      turns.map((t, i) => ({ ...template, session: s.id, turn: t.id, coder: "human:coder-b", codes: [BALES[(edit.code + i) % BALES.length]] })),
    );
  } else {
    const path = join(dir, "colloquy.json");
    const config = JSON.parse(await readFile(path, "utf8"));
    config.concepts.rateBasis = edit.value === 0 ? "session" : "active";
    config.topics.scope = edit.value === 2 ? "session" : "participant";
    await writeFile(path, JSON.stringify(config, null, 2));
  }
}

/** A copy of the study's inputs only: no memo, no pipeline state, no analysis files, no site. */
async function freshCopy(dir: string): Promise<string> {
  const copy = join(await mkdtemp(join(tmpdir(), "colloquy-memo-fresh-")), "study");
  const derived = [".cache", ".colloquy-state.json", "analysis", "site"].map((name) => join(dir, name));
  await cp(dir, copy, { recursive: true, filter: (path) => !derived.includes(path) });
  return copy;
}

describe("the memo (issue 33)", () => {
  it("after any sequence of edits, a memoised run writes what a run from scratch writes", async () => {
    const base = await grownDemo();
    await study(base);
    expect(existsSync(join(base, ".cache", "memo"))).toBe(true);
    await fc.assert(
      fc.asyncProperty(fc.array(edits, { minLength: 1, maxLength: 2 }), async (sequence) => {
        const dir = join(await mkdtemp(join(tmpdir(), "colloquy-memo-run-")), "study");
        await cp(base, dir, { recursive: true });
        for (const edit of sequence) {
          await apply(dir, edit);
          await study(dir);
          const fresh = await freshCopy(dir);
          await study(fresh);
          const [got, want] = [await outputs(dir), await outputs(fresh)];
          expect(Object.keys(got)).toEqual(Object.keys(want));
          for (const name of Object.keys(want)) expect(got[name], `${JSON.stringify(edit)}: ${name}`).toBe(want[name]);
          await rm(join(fresh, ".."), { recursive: true, force: true });
        }
        await rm(join(dir, ".."), { recursive: true, force: true });
      }),
      { numRuns: 3, endOnFailure: true },
    );
    // A demo study's .cache/ holds at most three entries (the LLM response cache would be one).
    expect((await readdir(join(base, ".cache"))).length).toBeLessThanOrEqual(3);
  }, 900_000);
});
