import { createRequire } from "node:module";

/**
 * fflate (zip and unzip: .docx transcripts, REFI-QDA projects), loaded on first use: importing its
 * ES build cost ~20 ms of every import run, though few transcripts are zipped. `require` keeps
 * callers synchronous.
 */
let library: typeof import("fflate") | undefined;

export const fflate = (): typeof import("fflate") => (library ??= createRequire(import.meta.url)("fflate") as typeof import("fflate"));
