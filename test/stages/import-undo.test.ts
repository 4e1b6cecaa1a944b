import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { appendCodes, readCodes } from "../../src/coding/store.js";
import { openStudy, runImport, silentEffects } from "../../src/index.js";
import { artifacts, loadArtifact } from "../../src/study/artifacts.js";
import { loadSessions } from "../../src/study/study.js";
import { turnFingerprint } from "../../src/transcript/fingerprint.js";

/** Failures injected into the import's writes: after codes were realigned, or on a session's rename. */
const faults = vi.hoisted(() => ({ afterRealign: false, renameTo: undefined as RegExp | undefined }));

vi.mock("../../src/coding/realign.js", async (original) => {
  const real = await original<typeof import("../../src/coding/realign.js")>();
  return {
    ...real,
    realignCodes: async (...args: Parameters<typeof real.realignCodes>) => {
      const summary = await real.realignCodes(...args);
      if (faults.afterRealign) throw new Error("injected: disk gone after the codes were rewritten");
      return summary;
    },
  };
});

vi.mock("node:fs/promises", async (original) => {
  const real = await original<typeof import("node:fs/promises")>();
  const rename: typeof real.rename = async (from, to) => {
    if (faults.renameTo?.test(String(to))) {
      faults.renameTo = undefined; // once: putting the file back must work
      throw new Error(`injected: rename to ${String(to)} failed`);
    }
    return real.rename(from, to);
  };
  return { ...real, default: { ...real, rename }, rename };
});

afterEach(() => {
  faults.afterRealign = false;
  faults.renameTo = undefined;
});

/** Every file of the study but the import map (rewritten with a new time) and caches, by relative path. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join((entry as { parentPath?: string }).parentPath ?? entry.path, entry.name);
    const name = relative(dir, path);
    if (!entry.isFile() || name.startsWith(".cache") || path === artifacts.importMap.path(dir)) continue;
    out[name] = await readFile(path, "utf8");
  }
  return out;
}

async function mapped(dir: string): Promise<Record<string, string>> {
  const read = await loadArtifact(artifacts.importMap, dir);
  return read.status === "ok" ? read.value.sessions : {};
}

/** A study with two transcripts imported, and a human code on every turn of the first. */
async function codedStudy() {
  const root = await mkdtemp(join(tmpdir(), "colloquy-import-undo-"));
  const dir = join(root, "study");
  await mkdir(dir);
  await writeFile(join(dir, "colloquy.json"), JSON.stringify({ codebooks: [] }));
  const first = join(root, "a.txt");
  const second = join(root, "b.txt");
  await writeFile(first, "Ana: Shall we start?\nBo: Yes, go ahead.\nAna: First question then.\n");
  await writeFile(second, "Cy: Hello.\nDee: Hi there.\n");
  await runImport(await openStudy(dir), { paths: [first, second] }, silentEffects);
  const ids = Object.values(await mapped(dir)).sort();
  const [session] = await loadSessions(dir, [ids[0]]);
  await appendCodes(
    dir,
    session.turns.map((t) => ({
      session: session.id,
      turn: t.id,
      fingerprint: turnFingerprint(t),
      codebook: "cb",
      codebookVersion: "1",
      coder: "human:alice",
      codes: [`said:${t.text}`],
      provenance: {},
      createdAt: "2026-01-01T00:00:00.000Z",
    })),
  );
  // Edited transcripts: a line added at the top shifts every turn id, so codes must move.
  await writeFile(first, "Bo: Before we begin.\nAna: Shall we start?\nBo: Yes, go ahead.\nAna: First question then.\n");
  await writeFile(second, "Cy: Hello.\nDee: Hi there.\nCy: Bye.\n");
  return { dir, first, second, ids };
}

describe("a file's import is whole or nothing", () => {
  it("a failure after its codes moved leaves sessions, codes and map exactly as before; the next import completes", async () => {
    const { dir, first, ids } = await codedStudy();
    const [before, map] = [await snapshot(dir), await mapped(dir)];
    faults.afterRealign = true;
    const failed = await runImport(await openStudy(dir), { paths: [first] }, silentEffects);
    expect(failed.files[0].error).toMatch(/as it was before this file.*injected/);
    expect(failed.files[0].sessions).toEqual([]);
    expect(await snapshot(dir)).toEqual(before);
    expect(await mapped(dir)).toEqual(map);

    faults.afterRealign = false;
    const done = await runImport(await openStudy(dir), { paths: [first] }, silentEffects);
    expect(done.files[0].error).toBeUndefined();
    expect(done.codesMoved).toBe(3);
    const [session] = await loadSessions(dir, [ids[0]]);
    for (const code of await readCodes(dir, "cb", "human:alice")) {
      expect(code.codes).toEqual([`said:${session.turns.find((t) => t.id === code.turn)!.text}`]);
    }
  });

  it("a failed rename of its session puts back its moved codes; other files of the run are kept", async () => {
    const { dir, first, second, ids } = await codedStudy();
    const before = await snapshot(dir);
    faults.renameTo = new RegExp(`${ids[0]}\\.json$`);
    const summary = await runImport(await openStudy(dir), { paths: [second, first] }, silentEffects);
    expect(summary.files.map((f) => Boolean(f.error))).toEqual([false, true]);
    const after = await snapshot(dir);
    // b.txt's session was replaced; a.txt's session and every code are as they were.
    expect(after[`sessions/${ids[1]}.json`]).not.toEqual(before[`sessions/${ids[1]}.json`]);
    expect({ ...after, [`sessions/${ids[1]}.json`]: "" }).toEqual({ ...before, [`sessions/${ids[1]}.json`]: "" });
    expect((await readdir(join(dir, "sessions"))).sort()).toEqual(ids.map((id) => `${id}.json`).sort());
  });
});
