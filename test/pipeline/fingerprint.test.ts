import { describe, expect, it, vi } from "vitest";
import { cp, mkdir, mkdtemp, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileHasher, fingerprint, type StatCache } from "../../src/pipeline/fingerprint.js";
import { runPipeline } from "../../src/pipeline/run.js";
import type { Stage } from "../../src/pipeline/types.js";
import { silentReporter } from "../../src/util/reporter.js";
import { readState } from "../../src/pipeline/state.js";
import { fileBytesHashed, fileHashOf, HASH_BLOCK, sha256 } from "../../src/util/hash.js";
import { appendJsonl, writeFileAtomic } from "../../src/util/fs.js";
import { acquireStudyLock, withStudyLock } from "../../src/study/lock.js";

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
  it("trusts a file this process just wrote under the writer lock at once, saves it for the next run only once settled, and not one another program just wrote", async () => {
    const { root } = await folder();
    const ours = join(root, "sessions", "ours.json");
    const theirs = join(root, "sessions", "theirs.json");
    const release = await acquireStudyLock(root, "test");
    try {
      await writeFileAtomic(ours, '{"text": "a stage wrote this"}');
      await writeFile(theirs, '{"text": "an editor saved this"}');
      const written = (await stat(ours)).mtimeMs;
      // Both "just written", however slowly the test runs.
      const clock = vi.spyOn(Date, "now").mockReturnValue(Math.max(written, (await stat(theirs)).mtimeMs));
      try {
        const hasher = new FileHasher(root);
        const hashes = await hasher.folder(join(root, "sessions"));
        expect(hashes["sessions/ours.json"]).toBe(sha256('{"text": "a stage wrote this"}'));
        expect(hashes["sessions/theirs.json"]).toBe(sha256('{"text": "an editor saved this"}'));
        expect(hasher.next["sessions/ours.json"]).toHaveLength(5);
        expect(hasher.next["sessions/theirs.json"]).toBeUndefined();
        // Saved for the next run only once its stamp has settled, while the lock is still held.
        expect(hasher.remembered(written + 10)["sessions/ours.json"]).toBeUndefined();
        expect(hasher.remembered(written + 10_000)["sessions/ours.json"]).toHaveLength(5);
        expect(hasher.remembered(written + 10_000)["sessions/a.json"]).toHaveLength(5);
      } finally {
        clock.mockRestore();
      }
    } finally {
      release();
    }
  });

  it("takes the hash of a file this run wrote under the lock from the write, reading nothing; reads one another program changed", async () => {
    const { root } = await folder();
    const path = join(root, "sessions", "ours.json");
    const release = await acquireStudyLock(root, "test");
    try {
      // Written in chunks, as the analysis files laid out from stored lines are.
      await writeFileAtomic(path, [Buffer.from('{"text": '), Buffer.from('"ours — é"}')]);
      const hasher = new FileHasher(root);
      const files = await hasher.folder(join(root, "sessions"));
      expect(files["sessions/ours.json"]).toBe(sha256('{"text": "ours — é"}'));
      // Only the file this process did not write was read.
      expect(hasher.filesRead).toBe(1);
      // Another program writes other bytes of the same size: read, not taken from the write.
      await writeFile(path, '{"text": "them — é"}');
      const again = new FileHasher(root);
      expect((await again.folder(join(root, "sessions")))["sessions/ours.json"]).toBe(sha256('{"text": "them — é"}'));
      expect(again.filesRead).toBe(2);
    } finally {
      release();
    }
    // Written with no lock held: its hash is read.
    await writeFileAtomic(path, '{"text": "unlocked"}');
    const unlocked = new FileHasher(root);
    expect((await unlocked.folder(join(root, "sessions")))["sessions/ours.json"]).toBe(sha256('{"text": "unlocked"}'));
    expect(unlocked.filesRead).toBe(2);
  });

  it("hashes a file this run appended to from the last whole block of what it knew of it, and gets the hash of the whole file", async () => {
    const root = await mkdtemp(join(tmpdir(), "colloquy-hasher-"));
    const path = join(root, "codes", "rules.jsonl");
    await mkdir(join(root, "codes"));
    const line = (i: number) => `${JSON.stringify({ session: `s${i}`, turn: "t1", code: "agrees", note: "x".repeat(200) })}\n`;
    await writeFile(path, Array.from({ length: 15_000 }, (_, i) => line(i)).join(""));
    const past = new Date(Date.now() - 3_600_000);
    await utimes(path, past, past);
    const size = (await stat(path)).size;
    expect(size).toBeGreaterThan(3 * HASH_BLOCK);
    const first = new FileHasher(root);
    await first.folder(join(root, "codes"));
    const release = await acquireStudyLock(root, "test");
    try {
      // The next run: the file as the last one left it, then appended to by this process.
      const hasher = new FileHasher(root, first.next);
      expect((await hasher.folder(join(root, "codes")))["codes/rules.jsonl"]).toBe(fileHashOf(await readFile(path)));
      await appendJsonl(path, [{ session: "new", turn: "t1", code: "agrees" }]);
      hasher.forget([join(root, "codes")]);
      const before = fileBytesHashed.bytes;
      expect((await hasher.folder(join(root, "codes")))["codes/rules.jsonl"]).toBe(fileHashOf(await readFile(path)));
      // Read from the last whole block before the append on: less than two blocks, not the whole file.
      expect(fileBytesHashed.bytes - before).toBe((await stat(path)).size - Math.floor(size / HASH_BLOCK) * HASH_BLOCK);
    } finally {
      release();
    }
  });

  it("does not save an entry this process wrote the file after", async () => {
    const { root, path } = await folder();
    const hasher = new FileHasher(root);
    await hasher.folder(join(root, "sessions"));
    expect(hasher.remembered()["sessions/a.json"]).toHaveLength(5);
    const release = await acquireStudyLock(root, "test");
    try {
      await writeFileAtomic(path, '{"text": "rewritten"}');
    } finally {
      release();
    }
    expect(hasher.remembered(Date.now() + 60_000)["sessions/a.json"]).toBeUndefined();
  });

  it("does not trust an entry taken before this process wrote the file, even when the stamp comes back", async () => {
    const { root, path } = await folder();
    const previous: StatCache = {};
    const hasher = new FileHasher(root, previous);
    const release = await acquireStudyLock(root, "test");
    try {
      await writeFileAtomic(path, '{"text": "rewritten"}');
    } finally {
      release();
    }
    // As if the state held this stamp with other bytes' hash (an inode reused within one clock tick).
    const now = await stat(path);
    previous["sessions/a.json"] = [now.size, now.mtimeMs, now.ctimeMs, now.ino, "the hash of other bytes"];
    expect((await hasher.folder(join(root, "sessions")))["sessions/a.json"]).toBe(sha256('{"text": "rewritten"}'));
    expect(hasher.filesRead).toBe(1);
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
