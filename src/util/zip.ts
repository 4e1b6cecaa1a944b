import { onFirstUse } from "./on-first-use.js";

/**
 * fflate (zip and unzip: .docx transcripts, REFI-QDA projects), loaded on first use: importing its
 * ES build cost ~20 ms of every import run, though few transcripts are zipped. `require` keeps
 * callers synchronous.
 */
export const fflate = onFirstUse<typeof import("fflate")>("fflate");

/** The most one zip entry may unpack to (a transcript or a project file is far smaller). */
export const ZIP_ENTRY_LIMIT = 256 * 1024 * 1024;

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/**
 * The zip's entries that `wanted` names, and only those, unpacked: others (a project's videos)
 * stay compressed. An entry whose header says it unpacks to more than `limit`, or wanted entries
 * together over twice that, are refused with an error naming the entry (a zip bomb would otherwise
 * take all memory); fflate sizes each output by that header, so a header that lies cannot grow it.
 */
export function unzipEntries(bytes: Uint8Array, wanted: (name: string) => boolean, limit = ZIP_ENTRY_LIMIT): Record<string, Uint8Array> {
  let total = 0;
  return fflate().unzipSync(bytes, {
    filter: (entry) => {
      if (!wanted(entry.name)) return false;
      if (entry.originalSize > limit)
        throw new Error(`${entry.name} would unpack to ${mb(entry.originalSize)}, more than the ${mb(limit)} read from one zip entry (a zip bomb?)`);
      total += entry.originalSize;
      if (total > 2 * limit) throw new Error(`its entries would unpack to more than ${mb(2 * limit)} (a zip bomb?)`);
      return true;
    },
  });
}

/** UTF-8 text of a zip entry; invalid bytes become U+FFFD with a warning naming `where`, never silently. */
export function utf8Text(bytes: Uint8Array, where: string, warnings: string[]): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const text = new TextDecoder("utf-8").decode(bytes);
    const replaced = text.split("\uFFFD").length - 1;
    warnings.push(`${where}: ${replaced} invalid UTF-8 byte sequence(s) replaced by U+FFFD; the file's words there are not readable`);
    return text;
  }
}
