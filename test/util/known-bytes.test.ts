import { afterEach, describe, expect, it } from "vitest";
import { appendFile, mkdtemp, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { appendJsonl, writeFileAtomic } from "../../src/util/fs.js";
import { stamp } from "../../src/util/file-stamp.js";
import { isOwnWrite, knownHash, noteHash } from "../../src/util/known-bytes.js";
import { acquireStudyLock, type ReleaseStudyLock } from "../../src/study/lock.js";
import { sha256 } from "../../src/util/hash.js";

/** A codes-like file in a fresh folder, with the folder's writer lock held (own writes are trusted only then). */
let release: ReleaseStudyLock | undefined;
async function lockedFile(): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "colloquy-known-bytes-")), "codes.jsonl");
  release = await acquireStudyLock(dirname(path), "test");
  return path;
}
afterEach(() => {
  release?.();
  release = undefined;
});

const stampOf = async (path: string) => stamp(await stat(path));

/** Note the hash of the file as it is now, and return its bytes. */
async function noteNow(path: string): Promise<Buffer> {
  const bytes = await readFile(path);
  noteHash(path, await stampOf(path), bytes.length, sha256(bytes));
  return bytes;
}

describe("known bytes: what this process knows of a file without reading it again", () => {
  it("an own append keeps what was known of the bytes before it; the file's whole hash is known only once hashed", async () => {
    const path = await lockedFile();
    await appendJsonl(path, [{ n: 1 }, { n: 2 }]);
    expect(isOwnWrite(path, await stampOf(path))).toBe(true);
    const first = await noteNow(path);
    await appendJsonl(path, [{ n: 3 }]);
    await appendJsonl(path, [{ n: 4 }]);
    const now = await stampOf(path);
    expect(isOwnWrite(path, now)).toBe(true);
    // Two appends later, the first bytes are still known: each append started from the stamp the one before left.
    expect(knownHash(path, now, first.length)).toBe(sha256(first));
    expect(knownHash(path, now, now[0])).toBeUndefined();
    expect(knownHash(path, now, first.length + 1)).toBeUndefined();
  });

  it("knows nothing through a write of another program, an append that healed the last line, or a rewrite", async () => {
    const path = await lockedFile();
    await appendJsonl(path, [{ n: 1 }]);
    const first = await noteNow(path);
    // Another program appends (not through this process's writers): its stamp is no own write's.
    await appendFile(path, '{"n":2}\n');
    const foreign = await stampOf(path);
    expect(isOwnWrite(path, foreign)).toBe(false);
    expect(knownHash(path, foreign, first.length)).toBeUndefined();

    // A record that lacks its "\n" is written again whole (as text: the invalid byte becomes U+FFFD)
    // before the append: what was known of the file's bytes as they were no longer holds.
    await appendFile(path, Buffer.from('{"n":"\xff"}', "latin1"));
    const unterminated = await noteNow(path);
    await appendJsonl(path, [{ n: 4 }]);
    expect(knownHash(path, await stampOf(path), unterminated.length)).toBeUndefined();

    // Rewritten by this process: what was known at any earlier stamp is forgotten (a stamp can come back with other bytes).
    const before = await stampOf(path);
    const bytes = await noteNow(path);
    await writeFileAtomic(path, bytes);
    expect(knownHash(path, before, bytes.length)).toBeUndefined();
  });

  it("trusts own writes only while a writer lock is held; releasing the last lock forgets them and every unsettled hash", async () => {
    const path = await lockedFile();
    await writeFileAtomic(path, "{}\n");
    const written = await stampOf(path);
    expect(isOwnWrite(path, written)).toBe(true);
    noteHash(path, written, 3, sha256("{}\n"));
    const old = join(dirname(path), "old.jsonl");
    await writeFile(old, "{}\n");
    const past = new Date(Date.now() - 60_000);
    await utimes(old, past, past);
    noteHash(old, await stampOf(old), 3, sha256("{}\n"));
    release!();
    release = undefined;
    expect(isOwnWrite(path, written)).toBe(false);
    expect(knownHash(path, written, 3)).toBeUndefined();
    // A settled hash stays known: its stamp changes with any later write.
    expect(knownHash(old, await stampOf(old), 3)).toBe(sha256("{}\n"));
    // Written with no lock held: not trusted.
    await writeFileAtomic(path, "[]\n");
    expect(isOwnWrite(path, await stampOf(path))).toBe(false);
  });

  it("trusts own writes only inside a study whose lock this process holds", async () => {
    const path = await lockedFile();
    const outside = join(await mkdtemp(join(tmpdir(), "colloquy-known-bytes-other-")), "codes.jsonl");
    await writeFileAtomic(outside, "{}\n");
    expect(isOwnWrite(outside, await stampOf(outside))).toBe(false);
    await writeFileAtomic(path, "{}\n");
    expect(isOwnWrite(path, await stampOf(path))).toBe(true);
  });

  it("a touched file is no longer an own write", async () => {
    const path = await lockedFile();
    await writeFileAtomic(path, "{}\n");
    expect(isOwnWrite(path, await stampOf(path))).toBe(true);
    const past = new Date(Date.now() - 60_000);
    await utimes(path, past, past);
    expect(isOwnWrite(path, await stampOf(path))).toBe(false);
  });

  it("an atomic write under the lock knows its bytes' hash, except in the study's dot-folders and once the lock is gone", async () => {
    const path = await lockedFile();
    const study = dirname(path);
    const analysis = join(study, "analysis", "result.json");
    await writeFileAtomic(analysis, [Buffer.from("{"), Buffer.from('"a": "é"}\n')]);
    const written = await stampOf(analysis);
    expect(knownHash(analysis, written, written[0])).toBe(sha256('{"a": "é"}\n'));
    // .cache/ and the state file: no fingerprint reads them, so they are not hashed.
    const cache = join(study, ".cache", "memo.v8");
    await writeFileAtomic(cache, "{}\n");
    expect(knownHash(cache, await stampOf(cache), 3)).toBeUndefined();
    // A write still running when the lock is released leaves no hash behind.
    const late = join(study, "analysis", "late.json");
    const writing = writeFileAtomic(late, "[]\n");
    release!();
    release = undefined;
    await writing;
    expect(knownHash(late, await stampOf(late), 3)).toBeUndefined();
  });
});
