// Torn lines left in codes and failures files, then a resumed `colloquy code` (a real process):
// healed, reported, nothing lost, nothing paid twice. And a full disk (a file size limit) in the
// middle of a run: a clear error, a readable study, and a next run that finishes the job.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startOpenAiServer } from "../support/openai-server.js";
import { codesPath, failuresPath } from "../../src/coding/store.js";
import { bundleCli, cachedTurns, checkStudy, codingHandler, createRandom, fileText, makeSessions, makeStudy, startCli, turnOf } from "./support.js";

let cli: Awaited<ReturnType<typeof bundleCli>>;
beforeAll(async () => {
  cli = await bundleCli();
});
afterAll(() => cli?.remove());

const codeArgs = (study: string, url: string) => [
  "code",
  study,
  "--codebook",
  "bales-ipa",
  "--coder",
  "llm",
  "--base-url",
  url,
  "--model",
  "test-model",
  "--concurrency",
  "4",
  "--flush-every",
  "2",
  "--flush-ms",
  "10",
];

describe("torn last lines, then a resumed run", () => {
  it("moves the torn bytes out of the codes and failures files, says where, codes what is left from the cache, prunes the failures", async () => {
    const sessions = makeSessions(createRandom(11), 2, 10);
    const study = await makeStudy(sessions);
    const server = await startOpenAiServer({ handler: codingHandler() });
    try {
      const first = await startCli(cli.file, codeArgs(study.dir, server.url)).done;
      expect(first.code, first.stderr).toBe(0);
      expect(server.chatRequests()).toHaveLength(20);

      // A crash: the last six records never made it whole, the sixth-last torn after 40 bytes;
      // the failures file (two turns that failed once) torn too.
      const codes = codesPath(study.dir, "bales-ipa", "llm");
      const lines = (await readFile(codes, "utf8")).trimEnd().split("\n");
      // Codes files hold run headers and ends too (coding/codes-file.ts): cut at the 15th code line.
      const codeLines = lines.flatMap((l, i) => ("session" in JSON.parse(l) ? [i] : []));
      const at = codeLines[14]!;
      const fragment = lines[at].slice(0, 40);
      await writeFile(codes, lines.slice(0, at).join("\n") + "\n" + fragment);
      const lost = codeLines.slice(14, 16).map((i) => JSON.parse(lines[i]) as { session: string; turn: string });
      const failure = (k: { session: string; turn: string }) =>
        JSON.stringify({ ...k, codebook: "bales-ipa", coder: "llm", reason: "timeout: no reply", createdAt: "2024-01-01T00:00:00.000Z" });
      await writeFile(failuresPath(study.dir, "bales-ipa", "llm"), `${failure(lost[0])}\n${failure(lost[1])}\n{"session":"s1","tu`);
      server.reset();

      const resumed = await startCli(cli.file, codeArgs(study.dir, server.url)).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      // Reported: which file, which line, how many bytes, where they are now.
      expect(resumed.stderr).toContain(`warning: codes/bales-ipa/llm.jsonl: line ${at + 1} was cut short`);
      expect(resumed.stderr).toMatch(
        /warning: codes\/bales-ipa\/llm\.jsonl: line \d+ was cut short by an interrupted write; its 40 unreadable byte\(s\) were moved to codes\/bales-ipa\/llm\.jsonl\.torn-\S+Z\n/,
      );
      expect(resumed.stderr).toMatch(
        /warning: codes\/bales-ipa\/llm\.failures\.jsonl: line 3 was cut short by an interrupted write; its 19 unreadable byte\(s\) were moved to codes\/bales-ipa\/llm\.failures\.jsonl\.torn-\S+Z\n/,
      );
      expect(resumed.stdout).toMatch(
        /^bales-ipa\/llm: coded 6, failed 0, cached 6, skipped 0, already coded 14, 2 earlier failure\(s\) now coded, requests 0 \(\+6 cached\)/,
      );
      // Nothing paid twice: every lost record came back from the response cache.
      expect(server.chatRequests()).toHaveLength(0);
      // Nothing lost: every turn coded exactly once, on its own words; the failures are gone.
      const check = await checkStudy(study.dir, sessions);
      expect(check).toMatchObject({ lines: 20, wrongTurn: [], duplicates: [], codedTurns: 20, failures: 0 });
      expect(await fileText(failuresPath(study.dir, "bales-ipa", "llm"))).toBe("");
      // The bytes are kept, not dropped.
      const folder = join(study.dir, "codes", "bales-ipa");
      const torn = (await readdir(folder)).filter((f) => f.includes(".torn-")).sort();
      expect(torn).toHaveLength(2);
      expect(
        await readFile(
          join(
            folder,
            torn.find((f) => f.startsWith("llm.jsonl"))!,
          ),
          "utf8",
        ),
      ).toBe(`${fragment}\n`);
      expect(
        await readFile(
          join(
            folder,
            torn.find((f) => f.startsWith("llm.failures"))!,
          ),
          "utf8",
        ),
      ).toBe(`{"session":"s1","tu\n`);
    } finally {
      await server.close();
      await study.cleanup();
    }
  }, 60_000);
});

/** Whether `ulimit -f` makes writes fail with EFBIG here (POSIX sh, and Node ignoring SIGXFSZ). */
function fileSizeLimitWorks(): string | undefined {
  if (process.platform === "win32") return "no POSIX sh / ulimit on Windows";
  const probe = spawnSync(
    "sh",
    [
      "-c",
      `ulimit -f 2 && trap '' XFSZ && exec "$0" -e "try { require('fs').writeFileSync(process.argv[1], Buffer.alloc(5000)); console.log('wrote') } catch (e) { console.log(e.code) }" "$1"`,
      process.execPath,
      join(cli.file + ".probe"),
    ],
    { encoding: "utf8" },
  );
  void rm(cli.file + ".probe", { force: true });
  if (probe.error) return `sh could not be run: ${probe.error.message}`;
  return probe.stdout.trim() === "EFBIG"
    ? undefined
    : `a 1 kB file size limit did not make a write fail with EFBIG (got ${JSON.stringify(probe.stdout.trim() || probe.stderr.trim())})`;
}

describe("a full disk in the middle of a run", () => {
  it("fails with a clear error, leaves every file readable and whole; the next run finishes without paying twice", async (context) => {
    const unsupported = fileSizeLimitWorks();
    if (unsupported) return context.skip(`file size limits cannot be simulated here: ${unsupported}`);
    const sessions = makeSessions(createRandom(23), 3, 15);
    const study = await makeStudy(sessions);
    const server = await startOpenAiServer({ handler: codingHandler(() => 5) });
    const LIMIT_BLOCKS = 24; // 512-byte blocks: 12 kB, about 20 code records
    try {
      const full = await startCli(cli.file, codeArgs(study.dir, server.url), { shell: `ulimit -f ${LIMIT_BLOCKS} && trap '' XFSZ &&` }).done;
      expect(full.code, full.stderr).toBe(1);
      expect(full.stderr).toContain(
        `could not store code records in ${join(study.dir, "codes")}: no space to write (EFBIG: the disk is full or a file size limit was reached). The codes files were left as they were before this write`,
      );
      expect(full.stderr).toContain("Free some space and run the same command again.");
      const codes = codesPath(study.dir, "bales-ipa", "llm");
      const size = (await stat(codes)).size;
      expect(size).toBeLessThanOrEqual(LIMIT_BLOCKS * 512);
      expect((await readFile(codes, "utf8")).endsWith("\n")).toBe(true);
      const partial = await checkStudy(study.dir, sessions);
      expect(partial.wrongTurn).toEqual([]);
      expect(partial.duplicates).toEqual([]);
      expect(partial.lines).toBeGreaterThan(0);
      expect(partial.lines).toBeLessThan(45);
      const firstRun = server.chatRequests().length;
      const cached = await cachedTurns(study.dir);
      // Each reply is cached before its code is queued: every stored code has its cached reply.
      expect(partial.stored.filter((turn) => !cached.has(turn))).toEqual([]);

      const again = await startCli(cli.file, codeArgs(study.dir, server.url)).done;
      expect(again.code, again.stderr).toBe(0);
      expect(await checkStudy(study.dir, sessions)).toMatchObject({ lines: 45, wrongTurn: [], duplicates: [], codedTurns: 45, failures: 0 });
      // Every reply cached before the disk filled up came from the cache: only requests still in
      // flight when the run stopped (aborted) were sent again.
      const resent = server
        .chatRequests()
        .slice(firstRun)
        .map(turnOf)
        .filter((turn) => cached.has(turn));
      expect(resent).toEqual([]);
      expect(server.chatRequests().length - firstRun).toBe(45 - cached.size);
    } finally {
      await server.close();
      await study.cleanup();
    }
  }, 60_000);
});
