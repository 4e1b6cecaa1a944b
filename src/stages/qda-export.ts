import { fflate } from "../util/zip.js";
import { basename, resolve } from "node:path";
import { readFile } from "node:fs/promises";
import { deflateRawSync } from "node:zlib";
import { loadCodebook, loadStudyCodebook, parseCodebook } from "../coding/codebook/load.js";
import type { Codebook } from "../coding/codebook/schema.js";
import type { CodeRecord } from "../coding/records.js";
import { buildProject } from "../qda/project-write.js";
import { codebookToQdc, qdcToCodebooks } from "../qda/qdc.js";
import { artifacts } from "../study/artifacts.js";
import { CliError, errorMessage } from "../util/errors.js";
import { writeJsonAtomic } from "../util/fs.js";
import type { StudyContext } from "./context.js";

/**
 * REFI-QDA exports of a study: the project (.qdpx: project.qde + sources/) that NVivo, ATLAS.ti,
 * MAXQDA and QualCoder open, and one codebook as a .qdc file.
 */

export interface QdpxExport {
  bytes: Uint8Array;
  sessions: number;
  codebooks: string[];
  coders: string[];
  codings: number;
  skipped: string[];
  warnings: string[];
}

/** Every code record that applies now, of every codebook and coder. */
export async function currentCodes(context: StudyContext): Promise<CodeRecord[]> {
  const out: CodeRecord[] = [];
  for (const [codebook, coders] of Object.entries(await context.coders())) {
    for (const coder of coders) out.push(...(await context.codes(codebook, coder)));
  }
  return out;
}

/** The codebooks of a study: those it plans (colloquy.json) and those it has codes of. */
async function studyCodebooks(context: StudyContext): Promise<Codebook[]> {
  const byId = new Map<string, Codebook>();
  for (const plan of context.config.codebooks) {
    const book = await loadStudyCodebook(context.dir, plan.codebook);
    byId.set(book.id, book);
  }
  for (const id of Object.keys(await context.coders())) {
    if (byId.has(id)) continue;
    try {
      byId.set(id, await loadStudyCodebook(context.dir, id));
    } catch {
      // Codes of a codebook the study can no longer load: reported as skipped records.
    }
  }
  return [...byId.values()];
}

export async function exportQdpx(context: StudyContext, options: { crlf?: boolean; name?: string; createdAt?: string }): Promise<QdpxExport> {
  const createdAt = options.createdAt ?? new Date().toISOString();
  const codebooks = await studyCodebooks(context);
  const records = await currentCodes(context);
  const sessions = await context.sessions();
  const files = buildProject({
    name: options.name ?? basename(resolve(context.dir)),
    sessions,
    codebooks,
    records,
    eol: options.crlf ? "\r\n" : "\n",
    createdAt,
  });
  const entries: [string, string][] = [["project.qde", files.qde], ...files.sources];
  const exported = new Set(codebooks.map((c) => c.id));
  return {
    bytes: zipTexts(entries, new Date(createdAt)),
    sessions: sessions.length,
    codebooks: [...exported],
    coders: [...new Set(records.filter((r) => exported.has(r.codebook)).map((r) => r.coder))].sort(),
    codings: files.codings,
    skipped: files.skipped,
    warnings: files.warnings,
  };
}

/**
 * A zip of UTF-8 texts: fflate's zip container, each file deflated by Node's zlib, which took a
 * third of the time of fflate's own deflate on a 100,000-turn export (80 MB of XML and text).
 */
function zipTexts(files: readonly [string, string][], mtime: Date): Uint8Array {
  const { Zip, ZipPassThrough } = fflate();
  class ZlibDeflate extends ZipPassThrough {
    compression = 8;
    protected override process(chunk: Uint8Array, final: boolean): void {
      this.ondata!(null, deflateRawSync(chunk), final);
    }
  }
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  for (const [name, text] of files) {
    const file = new ZlibDeflate(name);
    file.mtime = mtime;
    zip.add(file);
    file.push(Buffer.from(text, "utf8"), true);
  }
  zip.end();
  return Buffer.concat(chunks);
}

/** One codebook (a study's own, shipped, or a file) as REFI-QDA codebook XML. */
export async function exportQdc(study: string | undefined, ref: string): Promise<{ xml: string; codebook: Codebook }> {
  if (!ref) throw new CliError("--codebook <id> is required for --format qdc (e.g. --codebook bales-ipa)");
  const codebook = study ? await loadStudyCodebook(study, ref) : await loadCodebook(ref);
  return { xml: codebookToQdc(codebook), codebook };
}

/** A .qdc file made into Colloquy codebook file(s): into a study's codebooks/, to --out, or to <id>.json here. */
export async function importQdcCodebook(
  file: string,
  options: { out?: string; study?: string; id?: string },
): Promise<{ written: { path: string; codebook: Codebook }[]; warnings: string[] }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CliError(`${file}: cannot read it (${errorMessage(error)})`);
  }
  let parsed;
  try {
    parsed = qdcToCodebooks(text, file, options.id);
  } catch (error) {
    throw new CliError(errorMessage(error));
  }
  if (options.out && parsed.codebooks.length > 1)
    throw new CliError(
      `${file} holds ${parsed.codebooks.length} codebooks (${parsed.codebooks.map((c) => c.id).join(", ")}); leave out --out to write each as <id>.json`,
    );
  const written: { path: string; codebook: Codebook }[] = [];
  for (const book of parsed.codebooks) {
    const codebook = parseCodebook(JSON.stringify(book), `${file}: codebook ${book.id}`);
    const path = options.study ? artifacts.codebook.path(options.study, codebook.id) : (options.out ?? `${codebook.id}.json`);
    await writeJsonAtomic(path, codebook);
    written.push({ path, codebook });
  }
  return { written, warnings: parsed.warnings };
}
