import { describe, expect, it, vi } from "vitest";
import { cp, mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileHasher, fileHash, fingerprint, type StatCache } from "../../src/pipeline/fingerprint.js";
import { runPipeline } from "../../src/pipeline/run.js";
import type { Stage } from "../../src/pipeline/types.js";
import { silentReporter } from "../../src/util/reporter.js";
import { readState } from "../../src/pipeline/state.js";
import { sha256 } from "../../src/util/hash.js";
import { writeFileAtomic } from "../../src/util/fs.js";
import { withStudyLock } from "../../src/study/lock.js";

async function folder(): Promise<{ root: string; path: string; when: Date }> {
  const root = await mkdtemp(join(tmpdir(), "colloquy-hasher-"));
  const path = join(root, "sessions", "a.json");
  await mkdir(join(root, "sessions"));
  await writeFile(path, '{"text": "first"}');
  // An hour back: past the window in which a fresh hash is not remembered.
  const when = new Date(Date.now() - 3_600_000);
  await utimes(path, when, when);
  return { root, path, when };
}

describe("FileHasher", () => {
  it("after forget(folders), hashes those folders (and folders inside them) again and keeps the others' hashes", async () => {
    const { root, path } = await folder();
    await mkdir(join(root, "codes", "bales"), { recursive: true });
    await writeFile(join(root, "codes", "bales", "rules.jsonl"), "{}\n");
    const hasher = new FileHasher(root);
    const sessions = await hasher.folder(join(root, "sessions"));
    const codes = await hasher.folder(join(root, "codes", "bales"));
    // Stages write through util/fs.ts, which notes each write (util/known-bytes.ts).
    await writeFileAtomic(path, '{"text": "changed by a stage"}');
    await writeFileAtomic(join(root, "codes", "bales", "rules.jsonl"), "{}\n{}\n");
    hasher.forget([join(root, "codes")]);
    // The sessions' hashes are the ones taken before (their folder was not declared written) ...
    expect(await hasher.folder(join(root, "sessions"))).toBe(sessions);
    // ... the codes' are new, for a folder inside the one forgotten too.
    const again = await hasher.folder(join(root, "codes", "bales"));
    expect(again["codes/bales/rules.jsonl"]).toBe(sha256("{}\n{}\n"));
    expect(again).not.toEqual(codes);
    hasher.forget([join(root, "sessions")]);
    expect((await hasher.folder(join(root, "sessions")))["sessions/a.json"]).toBe(sha256('{"text": "changed by a stage"}'));
  });

  it("forget matches folders by path, not by text: a sibling whose name starts the same is kept; the study root around a folder is dropped", async () => {
    const { root } = await folder();
    await mkdir(join(root, "codes"));
    await mkdir(join(root, "codes2"));
    const hasher = new FileHasher(root);
    const codes = hasher.folder(join(root, "codes"));
    await codes;
    const sibling = await hasher.folder(join(root, "codes2"));
    const whole = await hasher.folder(root);
    const sessions = await hasher.folder(join(root, "sessions"));
    // A trailing separator names the same folder.
    hasher.forget([join(root, "codes") + "/"]);
    expect(hasher.folder(join(root, "codes"))).not.toBe(codes);
    expect(await hasher.folder(join(root, "codes2"))).toBe(sibling);
    expect(await hasher.folder(join(root, "sessions"))).toBe(sessions);
    // The root holds codes/: its hashes are taken again.
    expect(await hasher.folder(root)).not.toBe(whole);
  });

  it("reads an unchanged file once, and again when it was edited even with its size and mtime put back", async () => {
    const { root, path, when } = await folder();
    const first = new FileHasher(root);
    const before = await first.folder(join(root, "sessions"));
    expect(first.filesRead).toBe(1);
    const unchanged = new FileHasher(root, first.next);
    expect(await unchanged.folder(join(root, "sessions"))).toEqual(before);
    expect(unchanged.filesRead).toBe(0);
    // Same number of bytes, old mtime put back (cp -p, rsync -a, tar, touch -r): a new ctime.
    await writeFile(path, '{"text": "other"}');
    await utimes(path, when, when);
    const info = await stat(path);
    expect([info.size, info.mtimeMs]).toEqual(first.next["sessions/a.json"].slice(0, 2));
    const edited = new FileHasher(root, unchanged.next);
    const after = await edited.folder(join(root, "sessions"));
    expect(edited.filesRead).toBe(1);
    expect(after["sessions/a.json"]).toBe(sha256(await readFile(path)));
    expect(after).not.toEqual(before);
  });

  it("hashes again a file remembered by a state file of an earlier version (size and mtime only), and reads such a state", async () => {
    const { root, path } = await folder();
    const info = await stat(path);
    const old: StatCache = { "sessions/a.json": [info.size, info.mtimeMs, "a hash from before the edit"] };
    const hasher = new FileHasher(root, old);
    expect((await hasher.folder(join(root, "sessions")))["sessions/a.json"]).toBe(sha256(await readFile(path)));
    expect(hasher.filesRead).toBe(1);
    expect(hasher.next["sessions/a.json"]).toHaveLength(5);

    const stages = { code: { fingerprint: "f", finishedAt: "2026-01-01T00:00:00.000Z", seconds: 1, summary: "s" } };
    await writeFile(join(root, ".colloquy-state.json"), JSON.stringify({ version: 1, stages, imported: {}, hashes: old }));
    const state = await readState(root);
    expect(state.stages).toEqual(stages);
    expect(state.hashes).toEqual(old);
  });
});

describe("the pipeline state", () => {
  it("saves the hash of a file a stage just wrote only once its stamp has settled, while the run still holds the lock", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-state-save-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const written = join(dir, "analysis", "written.json");
    const clock = vi.spyOn(Date, "now");
    // One stage writes a file; the next one's plan hashes the folder (a file this process just wrote: trusted at once).
    const writer: Stage = {
      name: "agree",
      description: "writes analysis/written.json",
      writes: ["analysis"],
      plan: async () => ({ fingerprint: "w", work: "write" }),
      async run() {
        await writeFileAtomic(written, "{}\n");
        // From here on, "now" is the moment it was written: its stamp has not settled.
        clock.mockReturnValue((await stat(written)).mtimeMs);
        return "wrote it";
      },
    };
    const reader: Stage = {
      name: "build",
      description: "hashes analysis/",
      writes: [],
      plan: async (c) => ({ fingerprint: fingerprint({ files: await c.hashes.folder(join(dir, "analysis")) }), work: "read" }),
      run: async () => "read it",
    };
    try {
      await withStudyLock(dir, "test", () => runPipeline(dir, [writer, reader], {}, silentReporter));
      expect((await readState(dir)).hashes?.["analysis/written.json"]).toBeUndefined();
      // Ten seconds later, settled: the next run saves it.
      clock.mockReturnValue((await stat(written)).mtimeMs + 10_000);
      await writeFile(join(dir, "analysis", "other.json"), "{}\n");
      await withStudyLock(dir, "test", () => runPipeline(dir, [reader], {}, silentReporter));
      expect((await readState(dir)).hashes?.["analysis/written.json"]).toHaveLength(5);
    } finally {
      clock.mockRestore();
    }
  });

  it("keeps the record of a quick stage when a later one fails, and of every stage at the end", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-state-quick-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const stateFile = join(dir, ".colloquy-state.json");
    const writes = () =>
      stat(stateFile).then(
        (s) => s.mtimeMs + s.ino * 1e9,
        () => 0,
      );
    const quick = (name: Stage["name"], fail = false, inputs = "inputs"): Stage => ({
      name,
      description: name,
      writes: [],
      plan: async () => ({ fingerprint: `${name} ${inputs}`, work: name }),
      run: async () => {
        if (fail) throw new Error(`${name} broke`);
        return `${name} done`;
      },
    });
    await expect(runPipeline(dir, [quick("import"), quick("code", true)], {}, silentReporter)).rejects.toThrow(/code broke/);
    expect(Object.keys((await readState(dir)).stages)).toEqual(["import"]);
    // The next run skips it, and the end of the run records the stages that ran.
    const before = await writes();
    const result = await runPipeline(dir, [quick("import"), quick("code"), quick("agree")], {}, silentReporter);
    expect(result.stages.map((s) => s.status)).toEqual(["skipped", "ran", "ran"]);
    expect(Object.keys((await readState(dir)).stages).sort()).toEqual(["agree", "code", "import"]);
    expect(await writes()).not.toBe(before);
    // A run where only a quick stage's inputs changed: its new record is written at the end.
    await runPipeline(dir, [quick("import"), quick("code"), quick("agree", false, "other inputs")], {}, silentReporter);
    expect((await readState(dir)).stages.agree?.fingerprint).toBe("agree other inputs");
  });
});

describe("fileHash", () => {
  it("is the sha256 of the file's bytes, read in chunks (empty, one chunk, several)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-file-hash-"));
    for (const size of [0, 10, (1 << 20) + 7, 3 << 20]) {
      const bytes = Buffer.alloc(size, 0);
      for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 0xff;
      const path = join(dir, `f${size}`);
      await writeFile(path, bytes);
      expect(await fileHash(path)).toBe(sha256(bytes));
    }
    await rm(dir, { recursive: true, force: true });
  });
});
