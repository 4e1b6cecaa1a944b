import { mkdir, readFile, rename, writeFile, appendFile, rm } from "node:fs/promises";
import { dirname, basename, join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * Write a file atomically: write a temp file in the same folder, then rename over the target.
 * A crash leaves either the old file or the new one, never half of one.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Pretty JSON (2-space indent, trailing newline), written atomically. */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(value, null, 2) + "\n");
}

/**
 * Append records as JSON lines. Each call writes whole lines in one append, so an interrupted
 * run leaves at most one torn final line, which readJsonl reports and skips.
 */
export async function appendJsonl(path: string, records: readonly unknown[]): Promise<void> {
  if (records.length === 0) return;
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

/** A JSONL file's records; a torn (unparseable) last line is returned in `torn`, not thrown. */
export async function readJsonl(path: string): Promise<{ records: unknown[]; torn: number[] }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], torn: [] };
    throw error;
  }
  const records: unknown[] = [];
  const torn: number[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      records.push(JSON.parse(line));
    } catch {
      if (i >= lines.length - 2) torn.push(i + 1);
      else throw new Error(`${path}:${i + 1}: not a valid JSON line`);
    }
  });
  return { records, torn };
}
