/**
 * Is "Note" in `Note: something` a speaker? Plain-text and Zoom-style transcripts only mark
 * speakers with `Name:`, so body text with a colon can look like a speaker change. A label is
 * read as a name only when it looks like one:
 *  - 1 to 4 words, at most 40 characters, no sentence punctuation (, ; ! ? ") and no URL;
 *  - every word starts with an upper-case letter or a digit ("Speaker 1", "Dr. Ada Lovelace",
 *    "P2", "ChatGPT"), or with a letter of a script that has no case ("王芳", "محمد", "김민준":
 *    these never start upper-case, and refusing them moved their words into the previous
 *    speaker's turn), or is a short particle inside a name (de, van, von, der, da, al, bin);
 *  - callers add frequency rules (see plain.ts): a label seen only once is body text unless a
 *    time stamp or --agents confirms it.
 */
const particles = new Set(["de", "van", "von", "der", "den", "da", "di", "du", "le", "la", "al", "bin", "ibn", "del", "dos", "das"]);

export function looksLikeName(label: string): boolean {
  const name = label.trim();
  if (name.length === 0 || name.length > 40) return false;
  // Sentence punctuation of scripts without case too (，、。；！？ and Arabic ، ؟): there, case
  // cannot tell "第一点，预算：" (first, the budget:) from a name.
  if (/[,;!?"“”<>{}\[\]=\\/@#，、。；！？،؟]|https?$/.test(name)) return false;
  const words = name.split(/\s+/);
  if (words.length > 4) return false;
  return words.every((w, i) => /^[\p{Lu}\p{Lt}\p{Lo}\p{N}(]/u.test(w) || (i > 0 && i < words.length - 1 && particles.has(w.toLowerCase())));
}

/** A time stamp as transcripts write it: 1:23, 01:23:45, 00:01:23.500, 00:01:23,500. */
export const timeToken = String.raw`\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?`;
