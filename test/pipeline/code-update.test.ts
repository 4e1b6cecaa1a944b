// An updated Colloquy (a fix to an analysis) re-runs the analysis stages of a study made with the
// old code: their fingerprints carry the code's version, the one the memo keys by. With the
// package version they stayed "unchanged since last run" and kept the old numbers.
import { afterAll, expect, it, vi } from "vitest";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const code = vi.hoisted(() => ({ version: "release 1" }));
vi.mock("../../src/util/code-version.js", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../src/util/code-version.js")>()),
  codeVersion: () => code.version,
}));

const app = vi.hoisted(() => ({ js: "app 1" }));
vi.mock("../../src/report/webbundle.js", () => ({ webAssets: async () => ({ js: app.js, css: "", origin: "prebundled" }) }));

const { runPipeline } = await import("../../src/pipeline/run.js");
const { studyStages } = await import("../../src/pipeline/stages.js");
const { silentReporter } = await import("../../src/util/reporter.js");

const demo = join(import.meta.dirname, "../../fixtures/demo-study");
const root = await mkdtemp(join(tmpdir(), "colloquy-code-update-"));
afterAll(() => rm(root, { recursive: true, force: true }));

it("after an update of the code, import and code are skipped and every analysis stage runs again", async () => {
  const dir = join(root, "demo");
  await cp(demo, dir, { recursive: true });
  const statuses = async () => Object.fromEntries((await runPipeline(dir, studyStages, {}, silentReporter)).stages.map((o) => [o.name, o.status]));
  await statuses();
  expect(Object.values(await statuses()).every((s) => s === "skipped")).toBe(true);
  code.version = "release 2";
  expect(await statuses()).toEqual({
    import: "skipped",
    code: "skipped",
    agree: "ran",
    compare: "ran",
    stats: "ran",
    topics: "ran",
    concepts: "ran",
    build: "ran",
  });
}, 240_000);

it("after an update of the dashboard app alone, the site is built again", async () => {
  const dir = join(root, "demo");
  const statuses = async () => Object.fromEntries((await runPipeline(dir, studyStages, {}, silentReporter)).stages.map((o) => [o.name, o.status]));
  expect(Object.values(await statuses()).every((s) => s === "skipped")).toBe(true);
  app.js = "app 2";
  const after = await statuses();
  expect(after.build).toBe("ran");
  expect(
    Object.entries(after)
      .filter(([, s]) => s === "ran")
      .map(([name]) => name),
  ).toEqual(["build"]);
}, 240_000);
