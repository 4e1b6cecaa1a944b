import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import { createLearnedCoder } from "../../src/coding/learned/coder.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { readCodes } from "../../src/coding/store.js";
import { loadSessions } from "../../src/study/study.js";
import { mulberry32, shuffleInPlace } from "../../src/util/random.js";
import { runCli } from "../support/cli.js";
import { runSample } from "../../src/stages/sample.js";
import { openStudy } from "../../src/stages/context.js";
import { silentReporter } from "../../src/util/reporter.js";

/**
 * The learned coder is deterministic, honest about itself, and feeds active learning: on a small
 * generated study (our own templates, 10 sessions x 16 turns of four Bales categories, one turn in
 * eight given a wrong code so the coder cannot be perfect).
 */

const TEMPLATES: Record<string, string[]> = {
  "asks-orientation": ["where is the {n}?", "can you tell me what the {n} says?", "which {n} do we use?", "what time is the {n}?"],
  "gives-suggestion": ["let's {v} the {n} first", "we should {v} the {n}", "how about we {v} the {n} tomorrow", "maybe {v} the {n} before lunch"],
  agrees: ["yes, sounds good", "agreed, the {n} works", "sure, fine by me", "ok, makes sense"],
  "gives-orientation": ["the {n} is in the shared folder", "here is the {n} from last week", "the {n} starts at noon", "I uploaded the {n} to the drive"],
};
const NOUNS = ["report", "budget", "demo", "plan", "draft", "meeting", "schedule", "slides"];
const VERBS = ["review", "finish", "check", "send", "update"];
const CODES = Object.keys(TEMPLATES);

function rows(): { conversation: string; speaker: string; kind: string; text: string; code: string }[] {
  const random = mulberry32(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const out = [];
  for (let s = 0; s < 10; s++)
    for (let t = 0; t < 16; t++) {
      const code = pick(CODES);
      const text = pick(TEMPLATES[code]).replace("{n}", pick(NOUNS)).replace("{v}", pick(VERBS));
      const noisy = random() < 0.125 ? pick(CODES) : code;
      const speaker = t % 3 === 2 ? "bot" : t % 2 ? "ana" : "ben";
      out.push({ conversation: `s${s}`, speaker, kind: speaker === "bot" ? "ai" : "human", text, code: noisy });
    }
  return out;
}

let dir: string;
const studies: Record<string, string> = {};

/** A study of the generated turns whose human codes (human:alice) came through a coding sheet, its rows in `order`. */
async function study(name: string, order: "as written" | "shuffled", keep = (_i: number) => true): Promise<string> {
  const path = join(dir, name);
  const all = rows();
  // The same file name for every study: session ids come from it.
  await mkdir(join(dir, `${name}-source`));
  const csv = join(dir, `${name}-source`, "turns.csv");
  await writeFile(csv, Papa.unparse(all.map(({ conversation, speaker, kind, text }) => ({ conversation, speaker, kind, text }))));
  expect((await runCli(["import", csv, "--study", path, "--columns", "session=conversation,speaker=speaker,text=text,kind=kind"])).code).toBe(0);
  const sheet = join(dir, `${name}-sheet.csv`);
  expect((await runCli(["sheet", path, "--codebook", "bales-ipa", "--coders", "alice", "--context", "0", "--out", sheet])).code).toBe(0);
  const filled = Papa.parse<Record<string, string>>(await readFile(sheet, "utf8"), { header: true, skipEmptyLines: true }).data;
  // The sheet lists the turns in the order written, as `rows()` made them.
  filled.forEach((row, i) => (row.code_alice = keep(i) ? all[i].code : ""));
  const lines = filled.filter((r) => r.code_alice);
  if (order === "shuffled") shuffleInPlace(lines, mulberry32(99));
  await writeFile(sheet, Papa.unparse(lines));
  expect((await runCli(["codes", "import", sheet, "--study", path, "--codebook", "bales-ipa", "--coder", "human:alice"])).code).toBe(0);
  return path;
}

/** What a record says, without when it was written. */
const content = (r: CodeRecord) => ({ ...r, createdAt: undefined, provenance: { ...r.provenance, createdAt: undefined } });

describe("learned coder: deterministic, honest, and active", { timeout: 600_000 }, () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-learned-honest-"));
    studies.a = await study("a", "as written");
    studies.b = await study("b", "shuffled");
    // Half the sessions coded: the rest are turns the coder never saw.
    studies.half = await study("half", "as written", (i) => i < 80);
  }, 600_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("the same codes in two orders give the identical model, training hash and codes", async () => {
    const codebook = await loadCodebook("bales-ipa");
    const [a, b] = await Promise.all(
      [studies.a, studies.b].map(async (path) => {
        const training = await readCodes(path, "bales-ipa", "human:alice");
        return { training, coder: createLearnedCoder({ codebook, sessions: await loadSessions(path), training, trainedOn: ["human:alice"] }) };
      }),
    );
    // The records really came in different orders.
    expect(a.training.map((r) => r.turn)).not.toEqual(b.training.map((r) => r.turn));
    expect(b.coder.trainingHash).toBe(a.coder.trainingHash);
    const parameters = (coder: typeof a.coder) => coder.model.heads[0].models.map((m) => [m.weights, m.bias]);
    expect(parameters(a.coder)).toHaveLength(2);
    expect(parameters(b.coder)).toEqual(parameters(a.coder));
    expect(b.coder.validation.predictions).toEqual(a.coder.validation.predictions);
    // And through the command: the stored codes are the same, record for record.
    for (const path of [studies.a, studies.b])
      expect((await runCli(["code", path, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice"])).code).toBe(0);
    const [ca, cb] = await Promise.all([studies.a, studies.b].map((p) => readCodes(p, "bales-ipa", "learned")));
    expect(cb.map(content)).toEqual(ca.map(content));
  });

  it("says how good it is before coding, stores the status with every code, and marks turns it never saw as held out", async () => {
    const run = await runCli(["code", studies.half, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice", "--json"]);
    expect(run.code).toBe(0);
    const [job] = JSON.parse(run.stdout).jobs;
    expect(job.learned.validation.interval.lower).toBeLessThan(job.learned.validation.kappa);
    expect(job.learned.validation.interval.upper).toBeGreaterThan(job.learned.validation.kappa);
    expect(job.learned.status).toMatchObject({ status: "validated", n: 80, sessions: 5 });
    const records = await readCodes(studies.half, "bales-ipa", "learned");
    const trained = new Set((await readCodes(studies.half, "bales-ipa", "human:alice")).map((r) => `${r.session}/${r.turn}`));
    for (const r of records) {
      expect(r.provenance.heldOut).toBe(true);
      expect(r.provenance.outOfFold).toBe(trained.has(`${r.session}/${r.turn}`));
      expect(r.provenance.validation).toMatchObject({ status: "validated", kappa: job.learned.status.kappa });
    }
    expect(records.filter((r) => !r.provenance.outOfFold)).toHaveLength(80);
  });

  it("below the floor it stops with the reason, or codes with --allow-below-floor and says so in every code", async () => {
    const few = await study("few", "as written", (i) => i % 16 < 1);
    const stop = await runCli(["code", few, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice"]);
    expect(stop.code).not.toBe(0);
    expect(stop.stderr).toMatch(/too few human codes per category: the median category has \d+/);
    // The advice can be followed in the order given: sample --strategy uncertain needs the coder's codes first.
    expect(stop.stderr).toMatch(/--allow-below-floor[^]*then[^]*--strategy uncertain/);
    // The researcher has seen the estimate, and nothing is stored.
    expect(stop.stderr).toMatch(/learned coder, estimated on this study by \d+-fold cross-validation grouped by session: kappa -?\d\.\d\d \(95% CI/);
    expect(await readCodes(few, "bales-ipa", "learned")).toEqual([]);
    expect((await runCli(["code", few, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice", "--allow-below-floor"])).code).toBe(0);
    const records = await readCodes(few, "bales-ipa", "learned");
    expect(records).toHaveLength(160);
    for (const r of records) expect(r.provenance.validation).toMatchObject({ status: "below-floor" });
    // The command the advice names, as written (its --out relative to the working directory, here the study).
    const advised = stop.stderr.match(/`colloquy (sample [^`]*--strategy uncertain[^`]*)`/)![1]!.split(" ");
    expect(advised).toContain("--out");
    const next = await runCli(advised.map((a) => (a === "next.csv" ? join(few, a) : a)));
    expect(next.stderr).toBe("");
    expect(next.code).toBe(0);
  });

  it("below the floor, colloquy study's refusal names the colloquy.json setting, since study takes no --allow-below-floor", async () => {
    const few = await study("few-plan", "as written", (i) => i % 16 < 1);
    const path = join(few, "colloquy.json");
    const config = JSON.parse(await readFile(path, "utf8"));
    await writeFile(path, JSON.stringify({ ...config, codebooks: [{ codebook: "bales-ipa", coders: ["learned"], train: ["human:alice"] }] }));
    const stop = await runCli(["study", few, "--only", "code"]);
    expect(stop.code).not.toBe(0);
    expect(stop.stderr).toMatch(/"allowBelowFloor": true in the bales-ipa plan of colloquy.json/);
    // Followed as written, the study codes, and every code says it is below the floor.
    await writeFile(
      path,
      JSON.stringify({ ...config, codebooks: [{ codebook: "bales-ipa", coders: ["learned"], train: ["human:alice"], allowBelowFloor: true }] }),
    );
    expect((await runCli(["study", few, "--only", "code"])).code).toBe(0);
    for (const r of await readCodes(few, "bales-ipa", "learned")) expect(r.provenance.validation).toMatchObject({ status: "below-floor" });
  });

  it("code --learning-curve and agree --learning-curve print the same curve, averaged over seeds", async () => {
    const code = JSON.parse(
      (await runCli(["code", studies.a, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice", "--learning-curve", "--json"])).stdout,
    ).jobs[0];
    // Nothing left to code (the previous test coded it), but the curve is measured all the same.
    const agree = JSON.parse(
      (await runCli(["agree", studies.a, "--codebook", "bales-ipa", "--coders", "learned,human:alice", "--learning-curve", "--bootstrap", "0", "--json"]))
        .stdout,
    ).learningCurve;
    expect(code.learned.curve.length).toBeGreaterThan(2);
    expect(agree.points).toEqual(code.learned.curve);
    for (const p of agree.points) {
      expect(p.seeds).toBe(3);
      expect(p.low).toBeLessThanOrEqual(p.kappa);
      expect(p.high).toBeGreaterThanOrEqual(p.kappa);
    }
  });

  it("rules codes carry their validation against the study's human codes", async () => {
    expect((await runCli(["code", studies.half, "--codebook", "bales-ipa", "--coder", "rules"])).code).toBe(0);
    const [record] = await readCodes(studies.half, "bales-ipa", "rules");
    expect(record.provenance.validation).toMatchObject({ against: ["human:alice"], n: 80, sessions: 5 });
    expect(["validated", "below-floor"]).toContain((record.provenance.validation as { status: string }).status);
  });

  it("sample --strategy uncertain --n picks doubtful turns nobody coded, spread across sessions, and the sheet takes them", async () => {
    const out = join(dir, "next.csv");
    const run = await runCli(["sample", studies.half, "--strategy", "uncertain", "--coder", "learned", "--n", "10", "--out", out]);
    expect(run.stderr).toBe("");
    // What to do next names the codebook (not "<id>") and says to code with the learned coder again.
    expect(run.stdout).toContain(`colloquy annotate ${studies.half} --codebook bales-ipa --sample ${out}`);
    expect(run.stdout).toContain("then code with the learned coder again");
    const picked = Papa.parse<{ session: string; turn: string }>((await readFile(out, "utf8")).trim(), { header: true }).data;
    expect(picked).toHaveLength(10);
    const trained = new Set((await readCodes(studies.half, "bales-ipa", "human:alice")).map((r) => r.session));
    expect(picked.some((r) => trained.has(r.session))).toBe(false);
    // Five uncoded sessions, ten turns: two from each.
    const perSession = new Map<string, number>();
    for (const r of picked) perSession.set(r.session, (perSession.get(r.session) ?? 0) + 1);
    expect([...perSession.values()]).toEqual([2, 2, 2, 2, 2]);
    // More than are left: the message says how many there are (and names no flag that was not typed).
    const tooMany = await runCli(["sample", studies.half, "--strategy", "uncertain", "--coder", "learned", "--n", "100000", "--out", join(dir, "all.csv")]);
    expect(tooMany.stderr).toMatch(/asked for 100000 turns, but .*only (\d+) .*; ask for \1 or fewer/);
    const sheet = join(dir, "next-sheet.csv");
    expect((await runCli(["sheet", studies.half, "--codebook", "bales-ipa", "--sample", out, "--coders", "bob", "--out", sheet])).code).toBe(0);
    expect(Papa.parse((await readFile(sheet, "utf8")).trim(), { header: true }).data).toHaveLength(10);

    const warned = async () => {
      const warnings: string[] = [];
      await runSample(
        await openStudy(studies.half),
        { size: { count: 10 }, stratify: [], seed: 1, strategy: "uncertain", coder: "learned", out: join(dir, "after.csv") },
        { ...silentReporter, warn: (w: string) => void warnings.push(w) },
      );
      return warnings.join("\n");
    };
    expect(await warned()).toBe("");
    // Alice codes the sample: until the coder is trained again, its doubts are the old model's, and sample says so.
    const alices = join(dir, "next-alice.csv");
    expect((await runCli(["sheet", studies.half, "--codebook", "bales-ipa", "--sample", out, "--coders", "alice", "--out", alices])).code).toBe(0);
    const filled = Papa.parse<Record<string, string>>((await readFile(alices, "utf8")).trim(), { header: true }).data;
    filled.forEach((row) => (row.code_alice = "agrees"));
    await writeFile(alices, Papa.unparse(filled));
    expect((await runCli(["codes", "import", alices, "--study", studies.half, "--codebook", "bales-ipa", "--coder", "alice"])).code).toBe(0);
    expect(await warned()).toMatch(
      /the codes of human:alice in bales-ipa changed since learned's codes were made: the doubts below are those of a model trained on other codes\. Run `colloquy code .* --coder learned --train human:alice` first/,
    );
    // The report's coding table says so too, beside the validation the codes were stored with;
    // training again clears it, and the same codes stored again (another file, later) do not bring it back.
    const learnedRow = async () => {
      const report = join(dir, "half-report.md");
      expect((await runCli(["report", studies.half, "--out", report])).code).toBe(0);
      return (await readFile(report, "utf8")).split("\n").find((l) => /^\| bales-ipa \|.*\| learned \|/.test(l));
    };
    expect(await learnedRow()).toMatch(/OUT OF DATE: human codes changed since it was trained/);
    expect((await runCli(["code", studies.half, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice"])).code).toBe(0);
    expect(await learnedRow()).not.toMatch(/OUT OF DATE/);
    const copy = join(dir, "next-alice-again.csv");
    await writeFile(copy, await readFile(alices, "utf8"));
    expect((await runCli(["codes", "import", copy, "--study", studies.half, "--codebook", "bales-ipa", "--coder", "alice"])).code).toBe(0);
    expect(await learnedRow()).not.toMatch(/OUT OF DATE/);
    expect(await warned()).toBe("");
  });
});
