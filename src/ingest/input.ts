import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { ImportError, type ImportInput } from "./types.js";

/** Strip one leading UTF-8 byte-order mark (Excel writes one on every "CSV UTF-8" file). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Unreadable files become ImportErrors naming the file, like every other bad input. */
function readError(path: string, error: unknown): ImportError {
  const code = (error as NodeJS.ErrnoException).code;
  const problem = code === "ENOENT" ? "file not found" : code === "EISDIR" ? "is a folder" : `cannot read (${code ?? String(error)})`;
  return new ImportError({ file: path, problem, expected: "a readable UTF-8 text file" });
}

/** An ImportInput over a file on disk; `lines()` streams, so line-based importers need not hold the raw file. */
export function fileInput(path: string): ImportInput {
  return {
    path,
    kind: "file",
    readText: async () => {
      try {
        return stripBom(await readFile(path, "utf8"));
      } catch (error) {
        throw readError(path, error);
      }
    },
    lines: () => streamLines(path),
  };
}

/** Lines ending in "\r\n", "\n" or a lone "\r" (readline's rules); a final terminator starts no empty line. */
async function* streamLines(path: string): AsyncIterable<string> {
  const stream = createReadStream(path, { encoding: "utf8" });
  const opened = new Promise<void>((resolveOpen, rejectOpen) => {
    stream.once("open", () => resolveOpen());
    stream.once("error", rejectOpen);
  });
  try {
    await opened;
  } catch (error) {
    throw readError(path, error);
  }
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let first = true;
  try {
    for await (const line of rl) {
      yield first ? stripBom(line) : line;
      first = false;
    }
  } catch (error) {
    throw readError(path, error);
  }
}

/** An ImportInput over text in memory (tests, stdin, the library API); lines split exactly like fileInput's. */
export function textInput(path: string, text: string): ImportInput {
  const clean = stripBom(text);
  return {
    path,
    kind: "file",
    readText: async () => clean,
    lines: () => linesOf(clean),
  };
}

async function* linesOf(text: string): AsyncIterable<string> {
  if (text === "") return;
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  yield* lines;
}

/** An ImportInput for a folder (Slack export): it has no text, so reading it is an ImportError naming it. */
export function directoryInput(path: string): ImportInput {
  const notText = (): ImportError => new ImportError({ file: path, problem: "is a folder, not a text file", expected: "a folder importer (slack-export) to list its files itself" });
  return {
    path,
    kind: "directory",
    readText: async () => {
      throw notText();
    },
    lines: () => failingLines(notText),
  };
}

async function* failingLines(error: () => ImportError): AsyncIterable<string> {
  throw error();
}
