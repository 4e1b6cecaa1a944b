import { existsSync, readFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { validateSession } from "../transcript/validate.js";
import type { Session } from "../transcript/schema.js";
import { CliError } from "../util/errors.js";
import { sha256 } from "../util/hash.js";
import { writeFileAtomic } from "../util/fs.js";
import { toolVersion } from "../util/provenance.js";

/**
 * Session files already validated, so a study's unchanged sessions are not validated again on
 * every run (zod is most of what loading a large study costs: ~2 s of ~2.5 s for 1000 sessions).
 * A file is remembered by size and modification time (as the pipeline's file hashes are, and git's
 * index) in `<study>/.cache/validated-sessions.json`, and only when validation gave back exactly
 * what the file holds (no default filled in, no unknown field dropped, same key order), so the
 * parsed JSON of a remembered file is what validation would return. The record is keyed by the
 * code of the schema and its checks: a change to either validates every file again. A cache:
 * missing, torn or foreign files are ignored, and deleting .cache/ is safe.
 */

/** A file written within this many ms may change again within the same mtime tick ("racy git"): not remembered. */
const RACY_MS = 2000;

interface ValidatedFile {
  code: string;
  /** Session id -> [size, mtimeMs] of the file as validated. */
  files: Record<string, [number, number]>;
}

let schemaCode: string | null | undefined;

/**
 * Hash of the session schema and its checks (compiled .js, or .ts when run from source); null
 * when they are not files next to this module (a bundle): then nothing is remembered.
 */
function schemaCodeHash(): string | null {
  if (schemaCode === undefined) {
    const dir = fileURLToPath(new URL("../transcript/", import.meta.url));
    const source = (name: string) => [join(dir, `${name}.js`), join(dir, `${name}.ts`)].find((f) => existsSync(f));
    const files = [source("schema"), source("validate")];
    schemaCode = files.every((f) => f !== undefined) ? sha256([toolVersion, ...files.map((f) => sha256(readFileSync(f!)))].join("\u0000")) : null;
  }
  return schemaCode;
}

const cachePath = (study: string) => join(study, ".cache", "validated-sessions.json");

export interface SessionFileReader {
  /** Read and (unless remembered as valid and unchanged) validate one session file. */
  read(path: string, id: string): Promise<Session>;
  /** Remember what was validated; with `all`, forget files of sessions no longer in the study. */
  save(all?: readonly string[]): Promise<void>;
}

export async function openSessionFiles(study: string): Promise<SessionFileReader> {
  const code = schemaCodeHash();
  let stored: ValidatedFile["files"] = {};
  try {
    const file = code === null ? undefined : (JSON.parse(await readFile(cachePath(study), "utf8")) as ValidatedFile);
    if (file && file.code === code && file.files && typeof file.files === "object") stored = file.files;
  } catch {
    // Missing or unreadable: validate everything (and remember it).
  }
  const next: ValidatedFile["files"] = { ...stored };
  let changed = false;
  return {
    async read(path, id) {
      let info;
      try {
        info = await stat(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new CliError(`${path}: no session "${id}" in this study`);
        throw error;
      }
      const text = await readFile(path, "utf8");
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new Error(`${path}: not valid JSON (${(error as Error).message})`);
      }
      const known = Object.hasOwn(stored, id) ? stored[id] : undefined;
      if (known && known[0] === info.size && known[1] === info.mtimeMs && Buffer.byteLength(text) === info.size) return value as Session;
      const session = validateSession(value, path);
      const remember = code !== null && Date.now() - info.mtimeMs > RACY_MS && JSON.stringify(session) === JSON.stringify(value);
      if (remember) next[id] = [info.size, info.mtimeMs];
      else delete next[id];
      changed ||= remember || known !== undefined;
      return session;
    },
    async save(all) {
      if (all) {
        const present = new Set(all);
        for (const id of Object.keys(next)) {
          if (!present.has(id)) {
            delete next[id];
            changed = true;
          }
        }
      }
      if (!changed || code === null) return;
      try {
        await writeFileAtomic(cachePath(study), JSON.stringify({ code, files: next } satisfies ValidatedFile));
      } catch {
        // A read-only study still loads; it is only validated again next time.
      }
    },
  };
}
