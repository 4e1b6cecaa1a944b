import { describe, expect, it } from "vitest";
import { appendFile, mkdtemp, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendJsonl, writeFileAtomic } from "../../src/util/fs.js";
import { stamp } from "../../src/util/file-stamp.js";
import { isOwnWrite, knownHash, noteHash } from "../../src/util/known-bytes.js";
import { sha256 } from "../../src/util/hash.js";

async function file(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "colloquy-known-bytes-")), "codes.jsonl");
}

const stampOf = async (path: string) => stamp(await stat(path));

describe("known bytes: what this process knows of a file without reading it again", () => {
  it("an own append keeps what was known of the bytes before it; the file's whole hash is known only once hashed", async () => {
    const path = await file();
    await appendJsonl(path, [{ n: 1 }, { n: 2 }]);
    const first = await readFile(path);
    const before = await stampOf(path);
    expect(isOwnWrite(path, before)).toBe(true);
    noteHash(path, before, first.length, sha256(first));
    await appendJsonl(path, [{ n: 3 }]);
    await appendJsonl(path, [{ n: 4 }]);
    const now = await stampOf(path);
    expect(isOwnWrite(path, now)).toBe(true);
    // Two appends later, the first bytes are still known: each append started from the stamp the one before left.
    expect(knownHash(path, now, first.length)).toBe(sha256(first));
    expect(knownHash(path, now, now[0])).toBeUndefined();
    expect(knownHash(path, now, first.length + 1)).toBeUndefined();
  });

  it("knows nothing through a write of another program, or through an append that healed a torn line", async () => {
    const path = await file();
    await appendJsonl(path, [{ n: 1 }]);
    const first = await readFile(path);
    noteHash(path, await stampOf(path), first.length, sha256(first));
    // Another program appends (not through this process's writers): its stamp is no own write's.
    await appendFile(path, '{"n":2}\n');
    const foreign = await stampOf(path);
    expect(isOwnWrite(path, foreign)).toBe(false);
    expect(knownHash(path, foreign, first.length)).toBeUndefined();

    const torn = await file();
    await appendJsonl(torn, [{ n: 1 }]);
    const sound = await readFile(torn);
    noteHash(torn, await stampOf(torn), sound.length, sha256(sound));
    await appendFile(torn, '{"n":');
    // Healing moves the torn bytes out first: the append below changes the file before its new records.
    await appendJsonl(torn, [{ n: 2 }]);
    const healed = await stampOf(torn);
    expect(isOwnWrite(torn, healed)).toBe(true);
    expect(knownHash(torn, healed, sound.length)).toBeUndefined();
  });

  it("an atomic write is an own write until the file is touched", async () => {
    const path = await file();
    await writeFileAtomic(path, "{}\n");
    expect(isOwnWrite(path, await stampOf(path))).toBe(true);
    const past = new Date(Date.now() - 60_000);
    await utimes(path, past, past);
    expect(isOwnWrite(path, await stampOf(path))).toBe(false);
    await writeFile(path, "{}\n");
    expect(isOwnWrite(path, await stampOf(path))).toBe(false);
  });
});
