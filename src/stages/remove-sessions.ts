import { copyFile, mkdir, rm } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { readCodeHistory, readFailures, replaceCodes, codesFolderFiles } from "../coding/store.js";
import { readStaleCodes } from "../coding/stale.js";
import { artifacts, loadArtifact, writeArtifact } from "../study/artifacts.js";
import { listSessionIds, sessionPath, studyPaths } from "../study/study.js";
import { CliError } from "../util/errors.js";
import { rewriteJsonl } from "../util/fs.js";
import { FileUndo } from "./import-undo.js";

/**
 * `colloquy sessions rm`: sessions leave the study with everything recorded about their turns
 * (codes, stale codes, coding failures) and their import-map entries, so no count includes them
 * any more. Every file it changes is first copied, as it was, into `backups/removed-<time>/`
 * (same layout as the study: copy the files back to undo). Whole or nothing: a failure part way
 * puts every file back.
 */

export interface RemovedSessions {
  sessions: string[];
  /** Code records removed (every coder and codebook; stale codes and failures not counted). */
  codes: number;
  /** Folder holding the files as they were. */
  backup: string;
}

export async function removeSessions(study: string, ids: readonly string[], now = new Date()): Promise<RemovedSessions> {
  const known = new Set(await listSessionIds(study));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new CliError(`${unknown.map((id) => `"${id}"`).join(", ")}: no such session in ${study}; list them with \`colloquy sessions ${study}\``);
  const gone = new Set(ids);
  const root = studyPaths(study).root;
  const backup = join(root, "backups", `removed-${now.toISOString().replace(/[:.]/g, "-")}`);
  const undo = new FileUndo();
  /** Keep a file's bytes for undo and a copy of it in the backup, before it is changed. */
  const save = async (path: string) => {
    await undo.keep(path);
    const copy = join(backup, relative(root, path));
    await mkdir(dirname(copy), { recursive: true });
    await copyFile(path, copy);
  };
  let codes = 0;
  try {
    for (const { codebook, file } of await codesFolderFiles(study)) {
      const name = `${codebook}/${file}`;
      const path = join(studyPaths(study).codes, name);
      const coder = artifacts.codes.match(name)?.[1];
      if (coder !== undefined) {
        const records = await readCodeHistory(study, codebook, coder);
        const kept = records.filter((r) => !gone.has(r.session));
        if (kept.length === records.length) continue;
        await save(path);
        codes += records.length - kept.length;
        await replaceCodes(study, codebook, coder, kept);
        continue;
      }
      // Stale lists and failure lists name the session of each entry too.
      const stale = artifacts.staleCodes.match(name);
      const failures = artifacts.codeFailures.match(name);
      const all: { session: string }[] = stale
        ? (await readStaleCodes(study, stale[0], stale[1])).map((s) => ({ ...s, session: s.attachedTo.session }))
        : failures
          ? await readFailures(study, failures[0], failures[1])
          : [];
      const kept = all.filter((entry) => !gone.has(entry.session));
      if (kept.length === all.length) continue;
      await save(path);
      // A stale entry is written back as it was read (the `session` added above is dropped).
      await rewriteJsonl(path, stale ? kept.map(({ session: _, ...entry }) => entry) : kept);
    }
    const map = await loadArtifact(artifacts.importMap, study);
    if (map.status === "ok") {
      const sessions = Object.fromEntries(Object.entries(map.value.sessions).filter(([, id]) => !gone.has(id)));
      if (Object.keys(sessions).length !== Object.keys(map.value.sessions).length) {
        await save(artifacts.importMap.path(study));
        await writeArtifact(artifacts.importMap, study, { ...map.value, sessions });
      }
    }
    for (const id of ids) {
      await save(sessionPath(study, id));
      await rm(sessionPath(study, id));
    }
  } catch (error) {
    await undo.restore();
    throw error;
  }
  return { sessions: [...ids], codes, backup };
}
