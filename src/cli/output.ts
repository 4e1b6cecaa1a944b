import { statSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { io } from "./io.js";

/** `--out -`: standard output, as in most Unix tools. Never a file named "-". */
export const STDOUT = "-";

/** True when `out` is a stream rather than a file to write beside: "-", or a device or pipe such as /dev/null. */
function isStream(out: string | undefined): boolean {
  if (out === undefined) return false;
  if (out === STDOUT) return true;
  try {
    return !statSync(out).isFile() && !statSync(out).isDirectory();
  } catch {
    return false; // not there yet: an ordinary file to create
  }
}

interface Written<T> {
  result: T;
  streamed: boolean;
  say: (line: string) => void;
}

/**
 * Run a command's writer for `--out <file>`. For "-" (standard output) or a device such as
 * /dev/null, the writer writes into a private temporary folder instead (so no file named "-",
 * nor `/dev/null.provenance.json`, is ever created), and only the main file is passed on: printed,
 * or written into the device. Its side files (provenance, legend, tables) are not kept.
 * `streamed` says the file the writer saw is gone (its summary should not name it); `say` prints a
 * summary line where it cannot mix with the data (stderr when the data went to stdout).
 */
export async function writeOutput<T>(out: string, write: (file: string) => Promise<T>): Promise<Written<T>>;
export async function writeOutput<T>(out: string | undefined, write: (file: string | undefined) => Promise<T>): Promise<Written<T>>;
export async function writeOutput<T>(out: string | undefined, write: (file: string) => Promise<T>): Promise<Written<T>> {
  const say = out === STDOUT ? (line: string) => io().err(line) : (line: string) => io().out(line);
  // (undefined only reaches a writer that accepts it: the second overload)
  if (!isStream(out)) return { result: await write(out as string), streamed: false, say };
  const folder = await mkdtemp(join(tmpdir(), "colloquy-out-"));
  try {
    const file = join(folder, `output${extname(out as string) || ".txt"}`);
    const result = await write(file);
    const bytes = await readFile(file);
    if (out === STDOUT) io().out(bytes.toString("utf8"));
    else await writeFile(out as string, bytes);
    return { result, streamed: true, say };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
