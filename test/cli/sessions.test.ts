import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDuration } from "../../src/cli/sessions.js";
import { runCli } from "../support/cli.js";

const fixtures = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));

describe("colloquy sessions", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-sessions-"));
    await runCli(["import", join(fixtures, "slack-paste/dataset"), "--study", dir, "--path-pattern", "{condition}/{run}/*"]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lists condition, run, human/ai participants, turns and duration", async () => {
    const run = await runCli(["sessions", dir]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^session\s+condition\s+run\s+participants\s+turns\s+duration$/);
    expect(lines[2]).toMatch(/^flat-1-run-1\s+flat\s+1\s+1 human \/ 3 ai\s+5\s+4:00$/);
    expect(lines[5]).toMatch(/^hierarchical-2-run-2\s+hierarchical\s+2\s+1 human \/ 2 ai\s+4\s+5:00$/);
    expect(lines.at(-1)).toBe("4 session(s), 18 turns");
  });

  it("prints JSON with provenance", async () => {
    const run = await runCli(["sessions", dir, "--json"]);
    const data = JSON.parse(run.stdout);
    expect(data.provenance.tool).toBe("colloquy");
    expect(data.sessions[2]).toMatchObject({
      id: "hierarchical-1-run-1",
      condition: "hierarchical",
      run: "1",
      humans: 1,
      ais: 3,
      turns: 5,
      durationSeconds: 300,
    });
  });

  it("fails with a hint for a missing study and says how to import into an empty one", async () => {
    const missing = await runCli(["sessions", join(dir, "nope")]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no such study folder.*colloquy init/);
    const empty = join(dir, "empty");
    await runCli(["init", empty]);
    expect((await runCli(["sessions", empty])).stdout).toMatch(/No sessions yet/);
  });

  it("formats durations", () => {
    expect([formatDuration(null), formatDuration(75), formatDuration(3725)]).toEqual(["-", "1:15", "1:02:05"]);
  });
});
