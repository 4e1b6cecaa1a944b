import { describe, expect, it } from "vitest";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { ownerTag } from "../../src/util/process.js";
import { openStudy, runImport, silentEffects } from "../../src/index.js";
import { artifacts, loadArtifact } from "../../src/study/artifacts.js";

/** A study folder with one transcript beside it. */
async function studyWithTranscript(): Promise<{ dir: string; transcript: string }> {
  const root = await mkdtemp(join(tmpdir(), "colloquy-import-atomic-"));
  const dir = join(root, "study");
  const { mkdir } = await import("node:fs/promises");
  await mkdir(dir);
  await writeFile(join(dir, "colloquy.json"), JSON.stringify({ codebooks: [] }));
  const transcript = join(root, "interview.txt");
  await writeFile(transcript, "Ana: Shall we start?\nBo: Yes, go ahead.\nAna: First question then.\n");
  return { dir, transcript };
}

describe("import is atomic per session", () => {
  it("a kill after the map names a session but before its file is written: the next import writes it under that id, once", async () => {
    const { dir, transcript } = await studyWithTranscript();
    await runImport(await openStudy(dir), { paths: [transcript] }, silentEffects);
    const map = await loadArtifact(artifacts.importMap, dir);
    expect(map.status).toBe("ok");
    const [id] = Object.values((map as { value: { sessions: Record<string, string> } }).value.sessions);
    // The state a kill between the map write and the session write leaves: mapped, no file.
    await rm(join(dir, "sessions", `${id}.json`));
    await runImport(await openStudy(dir), { paths: [transcript] }, silentEffects);
    expect(await readdir(join(dir, "sessions"))).toEqual([`${id}.json`]);
    // And a plain re-import replaces, never adds.
    await runImport(await openStudy(dir), { paths: [transcript] }, silentEffects);
    expect(await readdir(join(dir, "sessions"))).toEqual([`${id}.json`]);
  });

  it("a session a killed import staged is removed by the next import; one of a running process is kept", async () => {
    const { dir, transcript } = await studyWithTranscript();
    await runImport(await openStudy(dir), { paths: [transcript] }, silentEffects);
    // What kill -9 between staging and renaming leaves: a whole session under a temp name, with its pid.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    // Its temps carry this machine's host and boot, as a temp of a killed import here would.
    const deadTag = ownerTag().replace(/^\d+/, String(dead));
    const staged = [`.other.json.import-${dead}.tmp`, `..other.json.import-${dead}.tmp.${deadTag}.0123abcd.tmp`];
    // Another process still running (not this one): its temps are left alone.
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      const running = [`.mine.json.import-${process.pid}.tmp`, `.live.json.import-${other.pid}.tmp`];
      for (const name of [...staged, ...running]) await writeFile(join(dir, "sessions", name), "{}");
      const mapTemp = `..colloquy-imports.json.${deadTag}.0123abcd.tmp`;
      await writeFile(join(dir, mapTemp), "{}");
      await runImport(await openStudy(dir), { paths: [transcript] }, silentEffects);
      const left = await readdir(join(dir, "sessions"));
      for (const name of staged) expect(left).not.toContain(name);
      for (const name of running) expect(left).toContain(name);
      expect(await readdir(dir)).not.toContain(mapTemp);
    } finally {
      other.kill();
    }
  });
});
