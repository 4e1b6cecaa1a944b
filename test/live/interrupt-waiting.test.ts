import { describe, expect, it } from "vitest";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startRun } from "./kill-resume.js";

/** Ctrl-C before every person has opened their page: the run ends (no session to save) instead of hanging. */
describe("Ctrl-C while colloquy run --serve waits for the participants", () => {
  it("ends the run with code 130, saying no session had started", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-wait-"));
    await writeFile(
      join(dir, "s.yaml"),
      "id: s\ntask: Plan a picnic.\nparticipants: [{ name: Ann }, { name: Hana, kind: human }]\nstrategy: { type: autonomous }\n",
    );
    const run = await startRun([join(dir, "s.yaml"), "--serve", "--study", join(dir, "study"), "--base-url", "http://127.0.0.1:9/v1"], ["Hana"]);
    run.child.kill("SIGINT");
    const code = await Promise.race([run.exit, sleep(8_000).then(() => "still running")]);
    if (code === "still running") run.child.kill("SIGKILL");
    expect(code, run.stderr()).toBe(130);
    expect(run.stderr()).toContain("no session had started, nothing was saved");
    expect(existsSync(join(dir, "study", "sessions")) ? await readdir(join(dir, "study", "sessions")) : []).toEqual([]);
  }, 20_000);
});
