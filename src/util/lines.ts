import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";

/**
 * Bytes read at a time: what a read holds beyond the records made of it. 32 KB, not more: a chunk's
 * text of more than V8's largest regular object (128 KB) is made in its large-object space, which
 * only full collections free, and one character above U+00FF (a curly quote) makes a string two
 * bytes a character. Decoding a 49 MB codes file in 1 MB chunks took ~200 ms CPU, in 64 KB chunks
 * ~15 ms, and reading its records (readCodes) ~0.15 s less (100,000 turns, issue 33).
 */
const CHUNK = 1 << 15;

/**
 * Call `visit` with each line of a UTF-8 text file, in order, with its 1-based number and whether a
 * "\n" ended it; the last call is the text after the last "\n" ("" when the file ends with one, or is
 * empty), with `ended` false. The file is read a chunk at a time, so no more than one chunk (and the
 * line it cuts) is held besides what `visit` keeps: a codes file of a 100,000-turn study is ~50 MB
 * as one string, and as many again as lines (issue 33).
 *
 * Lines are split on "\n" only, as `text.split("\n")` splits the whole text: a "\r" before it stays
 * in the line (JSON.parse reads it as whitespace). A UTF-8 character cut by a chunk's end is decoded
 * whole; invalid bytes become U+FFFD, as readFile(path, "utf8") makes them.
 * Returns false, calling nothing, when there is no such file (any other error is thrown). `chunk`:
 * bytes read at a time (tests cut characters and lines with small ones).
 */
export async function visitLines(path: string, visit: (line: string, number: number, ended: boolean) => void, chunk = CHUNK): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  try {
    const decoder = new StringDecoder("utf8");
    const buffer = Buffer.allocUnsafe(chunk);
    // The start of the line the last chunks cut, in pieces (joined once its "\n" comes: a line longer than a chunk costs no repeated copies).
    let pending: string[] = [];
    let number = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunk, null);
      if (bytesRead === 0) break;
      const text = decoder.write(buffer.subarray(0, bytesRead));
      let end = text.indexOf("\n");
      if (end === -1) {
        pending.push(text);
        continue;
      }
      pending.push(text.slice(0, end));
      visit(pending.join(""), ++number, true);
      pending = [];
      let start = end + 1;
      for (end = text.indexOf("\n", start); end !== -1; start = end + 1, end = text.indexOf("\n", start)) visit(text.slice(start, end), ++number, true);
      pending.push(text.slice(start));
    }
    pending.push(decoder.end());
    visit(pending.join(""), ++number, false);
    return true;
  } finally {
    await handle.close();
  }
}
