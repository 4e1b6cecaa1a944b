// A really full disk under a real `colloquy code --coder llm`: the study lives on a small tmpfs
// (mounted in a user namespace, so no privileges are needed) that fills up mid-run. Every reply
// the server sent is kept (a cache entry, or the room the cache set aside before the first
// request), so the resume, on a disk with room, asks for none of them again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOpenAiServer } from "../support/openai-server.js";
import { bundleCli, checkStudy, codingHandler, createRandom, makeSessions, makeStudy, startCli, turnOf } from "./support.js";

let cli: Awaited<ReturnType<typeof bundleCli>>;
beforeAll(async () => {
  cli = await bundleCli();
});
afterAll(() => cli?.remove());

/** Why a tmpfs cannot be mounted in a user namespace here, or undefined when it can. */
function tmpfsUnsupported(): string | undefined {
  if (process.platform !== "linux") return "user namespaces are Linux only";
  const probe = spawnSync("unshare", ["-rm", "sh", "-c", "mount -t tmpfs -o size=64k none /tmp && echo mounted"], { encoding: "utf8" });
  if (probe.error) return `unshare could not be run: ${probe.error.message}`;
  return probe.stdout.trim() === "mounted" ? undefined : `unshare -rm could not mount a tmpfs (${probe.stderr.trim()})`;
}

/**
 * Copy the study onto a fresh tmpfs with `freeKb` of room left, run `colloquy <args>` on it there,
 * then copy what it left back to `after` (on the real disk).
 */
function runOnSmallDisk(study: string, after: string, freeKb: number, args: string[]) {
  const script = `
node=$1 cli=$2 disk=$3 study=$4 after=$5 free=$6; shift 6
mount -t tmpfs -o size=8m none "$disk" || exit 90
cp -a "$study/." "$disk/" || exit 91
used=$(df -k --output=used "$disk" | tail -n 1)
mount -o remount,size=$((used + free))k "$disk" || exit 92
"$node" "$cli" "$@"
status=$?
cp -a "$disk/." "$after/"
exit $status`;
  const disk = join(after, "..", "disk");
  const env = { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", OPENAI_MODEL: "", COLLOQUY_MODEL: "", CI: "true" };
  const child = spawn(
    "unshare",
    ["-rm", "sh", "-c", script, "sh", process.execPath, cli.file, disk, study, after, String(freeKb), ...args.map((a) => (a === study ? disk : a))],
    { stdio: ["ignore", "pipe", "pipe"], env },
  );
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.resume();
  return new Promise<{ code: number | null; stderr: string }>((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

describe("a disk that fills up in the middle of an online coding run", () => {
  it("keeps every reply it received; the resume asks for none of them again", async (context) => {
    const unsupported = tmpfsUnsupported();
    if (unsupported) return context.skip(`a full disk cannot be simulated here: ${unsupported}`);
    const sessions = makeSessions(createRandom(29), 3, 15);
    const study = await makeStudy(sessions);
    const work = await mkdtemp(join(tmpdir(), "colloquy-full-disk-"));
    const after = join(work, "after");
    await mkdir(after);
    await mkdir(join(work, "disk"));
    const server = await startOpenAiServer({ handler: codingHandler(() => 5) });
    const args = (dir: string) => [
      "code",
      dir,
      "--codebook",
      "bales-ipa",
      "--coder",
      "llm",
      "--base-url",
      server.url,
      "--model",
      "test-model",
      "--concurrency",
      "3",
    ];
    try {
      // The cache's reserved room (1 MiB, src/llm/client.ts) and about nine more 4 kB pages (entries, codes).
      const full = await runOnSmallDisk(study.dir, after, 1024 + 36, args(study.dir));
      expect(full.code, full.stderr).toBe(1);
      expect(full.stderr).toMatch(/ENOSPC/);
      const first = server.chatRequests();
      expect(first.length).toBeGreaterThan(0);
      expect(first.length).toBeLessThan(45);
      // Each request the first run sent was answered (the run stops starting requests, it does not abort them).
      expect(first.filter((r) => r.answeredAt === undefined)).toEqual([]);
      const answered = new Set(first.map(turnOf));

      const resumed = await startCli(cli.file, args(after)).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await checkStudy(after, sessions)).toMatchObject({ wrongTurn: [], duplicates: [], codedTurns: 45 });
      const again = server.chatRequests().slice(first.length).map(turnOf);
      expect(again.filter((turn) => answered.has(turn))).toEqual([]);
      expect(first.length + again.length).toBe(45);
    } finally {
      await server.close();
      await study.cleanup();
      await rm(work, { recursive: true, force: true });
    }
  }, 60_000);
});
