import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { allocate, codeableTurns, drawSample } from "../../src/coding/sample.js";
import { loadSessions } from "../../src/study/study.js";
import { runCli } from "../support/cli.js";
import { fixtureSession, humanCodingStudy, readSheet } from "../cli/human-coding-study.js";

describe("allocate: proportional allocation by largest remainder", () => {
  it("matches the worked example and always sums to n without exceeding a stratum", () => {
    // Hamilton's method, 10 seats over 3 parties of 6, 3 and 1 votes per 10:
    // quotas 6.0, 3.0, 1.0 -> exact; 7 seats: 4.2, 2.1, 0.7 -> 4, 2, 0 + one for the largest remainder (0.7).
    expect(
      allocate(
        10,
        new Map([
          ["a", 60],
          ["b", 30],
          ["c", 10],
        ]),
      ),
    ).toEqual(
      new Map([
        ["a", 6],
        ["b", 3],
        ["c", 1],
      ]),
    );
    expect(
      allocate(
        7,
        new Map([
          ["a", 60],
          ["b", 30],
          ["c", 10],
        ]),
      ),
    ).toEqual(
      new Map([
        ["a", 4],
        ["b", 2],
        ["c", 1],
      ]),
    );
    // Equal remainders: the larger stratum first, then the key.
    expect(
      allocate(
        1,
        new Map([
          ["b", 5],
          ["a", 5],
        ]),
      ),
    ).toEqual(
      new Map([
        ["b", 0],
        ["a", 1],
      ]),
    );
    expect(
      allocate(
        2,
        new Map([
          ["x", 3],
          ["y", 6],
          ["z", 3],
        ]),
      ),
    ).toEqual(
      new Map([
        ["x", 1],
        ["y", 1],
        ["z", 0],
      ]),
    );
    for (let n = 0; n <= 23; n++) {
      const sizes = new Map([
        ["p", 11],
        ["q", 7],
        ["r", 4],
        ["s", 1],
      ]);
      const out = allocate(n, sizes);
      expect([...out.values()].reduce((a, b) => a + b, 0)).toBe(n);
      for (const [key, k] of out) {
        expect(k).toBeLessThanOrEqual(sizes.get(key)!);
        // Each stratum is within one of its exact quota.
        expect(Math.abs(k - (n * sizes.get(key)!) / 23)).toBeLessThan(1);
      }
    }
    expect(() => allocate(24, new Map([["p", 23]]))).toThrow("cannot draw 24 of 23");
  });

  it("draws each stratum's share, reproducibly, in study order", () => {
    const sessions = [fixtureSession("a", "control", "1"), fixtureSession("b", "control", "2"), fixtureSession("c", "ai-led", "1")];
    const { turns } = codeableTurns(sessions);
    expect(turns).toHaveLength(24);
    const one = drawSample(turns, 9, ["condition", "speaker-kind"], 42);
    expect(one.units).toHaveLength(9);
    // Strata: control x human 10, control x ai 6, ai-led x human 5, ai-led x ai 3 (24 turns); 9 of them:
    // quotas 3.75, 2.25, 1.875, 1.125 -> 3, 2, 1, 1, and the 2 left go to the largest remainders (.875, .75).
    expect(one.strata).toEqual([
      { key: "condition=ai-led;speaker-kind=ai", population: 3, sample: 1 },
      { key: "condition=ai-led;speaker-kind=human", population: 5, sample: 2 },
      { key: "condition=control;speaker-kind=ai", population: 6, sample: 2 },
      { key: "condition=control;speaker-kind=human", population: 10, sample: 4 },
    ]);
    for (const s of one.strata) expect(one.units.filter((u) => u.stratum === s.key)).toHaveLength(s.sample);
    const order = turns.map((t) => `${t.session.id}/${t.turn.id}`);
    const drawn = one.units.map((u) => `${u.session.id}/${u.turn.id}`);
    expect([...drawn].sort((x, y) => order.indexOf(x) - order.indexOf(y))).toEqual(drawn);
    expect(drawSample(turns, 9, ["condition", "speaker-kind"], 42).units.map((u) => u.turn.id + u.session.id)).toEqual(
      one.units.map((u) => u.turn.id + u.session.id),
    );
    const others = new Set(
      [1, 2, 3, 4, 5].map((seed) =>
        drawSample(turns, 9, ["condition", "speaker-kind"], seed)
          .units.map((u) => `${u.session.id}/${u.turn.id}`)
          .join(","),
      ),
    );
    expect(others.size).toBeGreaterThan(1);
  });

  it("draws every turn of a stratum about equally often", () => {
    const { turns } = codeableTurns([fixtureSession("a", "control", "1")]);
    const counts = new Map<string, number>();
    for (let seed = 0; seed < 4000; seed++) {
      const key = drawSample(turns, 1, [], seed).units[0].turn.id;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(counts.size).toBe(8);
    // 500 expected per turn; 4 standard deviations is about 84.
    for (const n of counts.values()) expect(Math.abs(n - 500)).toBeLessThan(90);
  });
});

describe("colloquy sample", () => {
  let dir: string;
  let study: string;
  beforeEach(async () => {
    ({ dir, study } = await humanCodingStudy());
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes session,turn,fingerprint rows; the same seed gives the same file, another seed another sample", async () => {
    const a = join(dir, "a.csv");
    const b = join(dir, "b.csv");
    const c = join(dir, "c.csv");
    const run = await runCli(["sample", study, "--size", "25%", "--stratify", "condition,speaker-kind", "--seed", "3", "--out", a]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Sampled 8 of 32 codeable turn(s) (seed 3)");
    expect(run.stdout).toContain("condition=control;speaker-kind=human  3 of 10");
    expect((await runCli(["sample", study, "--size", "25%", "--stratify", "condition,speaker-kind", "--seed", "3", "--out", b])).code).toBe(0);
    expect(await readFile(b, "utf8")).toBe(await readFile(a, "utf8"));
    expect((await runCli(["sample", study, "--size", "25%", "--stratify", "condition,speaker-kind", "--seed", "4", "--out", c])).code).toBe(0);
    expect(await readFile(c, "utf8")).not.toBe(await readFile(a, "utf8"));

    const sample = await readSheet(a);
    expect(sample.fields).toEqual(["session", "turn", "fingerprint", "stratum"]);
    // Per stratum, proportional: 32 turns (control/ai-led x human 10, ai 6), 8 drawn: quotas 2.5, 1.5, 2.5, 1.5
    // -> 2, 1, 2, 1, and the 2 left go to the larger strata (the remainders tie at .5).
    const per = (stratum: string) => sample.rows.filter((r) => r.stratum === stratum).length;
    expect(per("condition=control;speaker-kind=human")).toBe(3);
    expect(per("condition=ai-led;speaker-kind=human")).toBe(3);
    expect(per("condition=control;speaker-kind=ai")).toBe(1);
    expect(per("condition=ai-led;speaker-kind=ai")).toBe(1);
    const sessions = await loadSessions(study);
    for (const row of sample.rows) {
      const turn = sessions.find((s) => s.id === row.session)!.turns.find((t) => t.id === row.turn)!;
      expect(["system", "reasoning"]).not.toContain(turn.type);
      expect(turn.text.trim()).not.toBe("");
    }
    const provenance = JSON.parse(await readFile(`${a}.provenance.json`, "utf8"));
    expect(provenance).toMatchObject({
      command: "sample",
      seed: 3,
      drawn: 8,
      population: 32,
      stratify: ["condition", "speaker-kind"],
      allocation: "proportional, largest remainder",
    });
  });

  it("takes a count and a selection; refuses sizes it cannot draw", async () => {
    const out = join(dir, "s.csv");
    const run = await runCli(["sample", study, "--size", "5", "--stratify", "session", "--condition", "ai-led", "--out", out, "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      size: 5,
      population: 16,
      strata: [
        { key: "session=ai-led-1", sample: 3 },
        { key: "session=ai-led-2", sample: 2 },
      ],
    });
    const tooMany = await runCli(["sample", study, "--size", "40", "--out", out]);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain("asked for 40 turns, but the study has only 32 codeable turn(s); ask for 32 or fewer");
    const bad = await runCli(["sample", study, "--size", "0.2", "--out", out]);
    expect(bad.stderr).toContain('--size "0.2": give a percentage');
    const strata = await runCli(["sample", study, "--size", "5", "--stratify", "gender", "--out", out]);
    expect(strata.stderr).toContain("--stratify gender: expected one or more of condition, run, session, speaker-kind, role");
  });
});
