// A small study on disk for the compare/stats CLI tests, built with the real study API.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initStudy, saveSession } from "../../src/study/study.js";
import { appendCodes } from "../../src/coding/store.js";
import type { StudyConfig } from "../../src/study/config.js";
import { pairedStudy } from "../analysis/compare/fixture.js";

/** The paired study of test/analysis/compare/compare.test.ts (SciPy reference values) saved as a study folder. */
export async function pairedStudyOnDisk(config: Partial<StudyConfig> = {}, coders: string[] = ["rules"]): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-compare-")), "study");
  await initStudy(dir, config);
  const { sessions, records } = pairedStudy();
  for (const s of sessions) await saveSession(dir, s);
  for (const coder of coders)
    await appendCodes(
      dir,
      records.map((r) => ({ ...r, coder })),
    );
  return dir;
}
