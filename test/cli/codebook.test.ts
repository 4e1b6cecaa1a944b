import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm, writeFile, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-codebook-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("colloquy codebook", () => {
  it("list shows the shipped codebooks and which have rules", async () => {
    const run = await runCli(["codebook", "list"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/bales-ipa\s+v1\.0\.0/);
    expect(run.stdout).toMatch(/13 categories, 10 groups, fallback "none"; rule coder available/);
    expect(run.stdout).toMatch(/ttct-creativity/);
    const json = await runCli(["codebook", "list", "--json"]);
    const list = JSON.parse(json.stdout) as { id: string; rules: boolean }[];
    expect(list.map((b) => [b.id, b.rules])).toEqual([
      ["bales-ipa", true],
      ["pragmatic-style", true],
      ["ttct-creativity", false],
    ]);
  });

  it("show prints categories with definitions and groups; --json prints the codebook", async () => {
    const run = await runCli(["codebook", "show", "bales-ipa"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(" 1. Shows solidarity [shows-solidarity]");
    expect(run.stdout).toContain("13. None of the above [none] (fallback)");
    expect(run.stdout).toMatch(/Problems of control \[control\] \(problem\): gives-suggestion, asks-suggestion/);
    const scales = await runCli(["codebook", "show", "pragmatic-style"]);
    expect(scales.stdout).toMatch(/Relationship \(hierarchical to equal\) \[relationship\], 1-7/);
    expect(scales.stdout).toMatch(/ {6}7: Fully equal/);
    const json = await runCli(["codebook", "show", "ttct-creativity", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: "ttct-creativity", kind: "scales" });
  });

  it("show of an unknown id lists the shipped ones and exits 1", async () => {
    const run = await runCli(["codebook", "show", "balse"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/unknown codebook "balse": shipped codebooks are bales-ipa, pragmatic-style, ttct-creativity/);
  });

  it("validate prints OK with a summary and warnings for a valid file", async () => {
    const file = join(dir, "mine.json");
    await writeFile(
      file,
      JSON.stringify({
        id: "mine",
        version: "0.1",
        title: "Mine",
        kind: "nominal",
        categories: [
          { id: "a", label: "A", definition: "first", examples: ["x", "y"] },
          { id: "b", label: "B", definition: "second" },
        ],
      }),
    );
    const run = await runCli(["codebook", "validate", file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`OK ${file}: "mine" version 0.1, nominal (one code per turn), 2 categories`);
    expect(run.stdout).toMatch(/warning: categories\[1\] "b" has no examples/);
    const shipped = await runCli(["codebook", "validate", "codebooks/bales-ipa.json"]);
    expect(shipped.code).toBe(0);
    expect(shipped.stdout).not.toMatch(/warning/);
    // A user's own file can be shown by path, too.
    expect((await runCli(["codebook", "show", file])).stdout).toContain("Mine");
  });

  it("validate names the wrong field and exits 1", async () => {
    const bales = JSON.parse(await readFile("codebooks/bales-ipa.json", "utf8"));
    bales.categories[3].groups = ["controll"];
    const file = join(dir, "broken.json");
    await writeFile(file, JSON.stringify(bales));
    const run = await runCli(["codebook", "validate", file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file}: invalid codebook: categories[3].groups names unknown group "controll"`);

    const yaml = join(dir, "bad.yaml");
    await writeFile(yaml, "id: y\nversion: '1'\ntitle: Y\nkind: nominal\ncategories:\n  - id: a\n    label: A\n");
    const y = await runCli(["codebook", "validate", yaml]);
    expect(y.code).toBe(1);
    expect(y.stderr).toMatch(/bad\.yaml: invalid codebook: categories\[0\]\.definition/);

    const missing = await runCli(["codebook", "validate", join(dir, "nope.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.json: cannot read codebook \(ENOENT\)/);
  });
});
