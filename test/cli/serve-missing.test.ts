import { describe, expect, it } from "vitest";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli.js";

describe("colloquy serve on a missing study", () => {
  it("fails before printing Building, naming the folder and how to create it", async () => {
    const missing = join(await mkdtemp(join(tmpdir(), "colloquy-serve-")), "no-such-study");
    const run = await runCli(["serve", missing, "--port", "0"]);
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toMatch(/Building/);
    expect(run.stderr).toMatch(/no-such-study: no such study folder.*colloquy init/);
  });
});
