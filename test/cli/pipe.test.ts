import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { initStudy, saveSession } from "../../src/study/study.js";

const bin = fileURLToPath(new URL("../support/colloquy-bin.ts", import.meta.url));

describe("a closed pipe", () => {
  it("`colloquy export <study> | head -1`: the output is dropped quietly, the command exits 0 with no stack trace", async () => {
    // 20,000 turns (several MB, far over a pipe's buffer); the reader stops after one line.
    const study = await mkdtemp(join(tmpdir(), "colloquy-pipe-"));
    await initStudy(study);
    const turns = Array.from({ length: 20_000 }, (_, i) => ({
      id: `t${i}`,
      index: i,
      speaker: "a",
      text: `turn number ${i} with some words in it`,
      type: "message" as const,
    }));
    await saveSession(study, { schemaVersion: 1, id: "long", metadata: {}, participants: [{ id: "a", name: "A", kind: "human" }], turns });
    const child = spawn(process.execPath, ["--import", "tsx", bin, "export", study, "--format", "jsonl"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    let first = "";
    await new Promise<void>((done) => {
      child.stdout.once("data", (d: Buffer) => {
        first = d.toString().split("\n")[0];
        child.stdout.destroy();
        done();
      });
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(JSON.parse(first).session).toBeTruthy();
    expect(stderr).not.toMatch(/EPIPE|at .*\(|Error/);
    expect(code).toBe(0);
    await rm(study, { recursive: true, force: true });
  });
});
