import { onFirstUse } from "./on-first-use.js";

/**
 * fflate (zip and unzip: .docx transcripts, REFI-QDA projects), loaded on first use: importing its
 * ES build cost ~20 ms of every import run, though few transcripts are zipped. `require` keeps
 * callers synchronous.
 */
export const fflate = onFirstUse<typeof import("fflate")>("fflate");
