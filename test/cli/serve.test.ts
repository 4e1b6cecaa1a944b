import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeDashboardFixture } from "../../fixtures/dashboard/generate.js";
import { runCli } from "../support/cli.js";

let dir: string;
let child: ChildProcess | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-servecli-"));
  await writeDashboardFixture(dir);
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

describe("colloquy serve", () => {
  it("builds when needed, prints the URL, serves the site and stops on Ctrl-C", async () => {
    // A real process (the command runs until SIGINT), started from source with tsx.
    const entry = `import { main } from ${JSON.stringify(resolve("src/cli/main.ts"))}; process.exitCode = await main(process.argv);`;
    child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", entry, "colloquy", "serve", dir, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (c) => (out += c));
    child.stderr!.on("data", (c) => (out += c));
    const url = await new Promise<string>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`no URL printed: ${out}`)), 40_000);
      child!.stdout!.on("data", () => {
        const m = out.match(/Dashboard: (http:\/\/127\.0\.0\.1:\d+\/)/);
        if (m) {
          clearTimeout(timer);
          ok(m[1]);
        }
      });
    });
    expect(out).toMatch(/Building the dashboard/);
    expect(existsSync(join(dir, "site", "index.html"))).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<div id="app">');
    const exited = new Promise<number | null>((ok) => child!.on("exit", (code) => ok(code)));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  }, 60_000);

  it("rejects a bad port and --no-build without a site", async () => {
    expect((await runCli(["serve", dir, "--port", "99999"])).stderr).toMatch(/--port 99999: not a port/);
    const empty = await mkdtemp(join(tmpdir(), "colloquy-nosite-"));
    try {
      await runCli(["init", empty]);
      const run = await runCli(["serve", empty, "--no-build"]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/index.html is missing: run `colloquy build/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
