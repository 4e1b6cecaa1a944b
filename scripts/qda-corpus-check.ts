/**
 * The REFI-QDA corpus check (issue 38), outside `npm test`: for every project in a folder of real
 * QDA exports (../shared/corpora/qda by default), import it into a fresh study with `colloquy
 * import`, export the study again with `colloquy export --format qdpx`, and count what survived:
 *
 * - pairs: (code name, selected text, user name) of every coding on a text selection, read from the
 *   original in the position unit its tool uses (NVivo: UTF-16 units, measured in SOURCES.md) and
 *   from our export in code points; retention = pairs of the original found in the export / pairs
 *   of the original (a multiset: a pair coded twice counts twice). Line breaks compare as "\n"
 *   (a CRLF source is exported with LF); text and user names must otherwise be identical. Printed
 *   twice: exactly, and with white space around the selected words trimmed (NVivo selects a whole
 *   paragraph with its line break; Colloquy selects a turn's words, without it).
 * - codes and sources imported against the numbers the project holds.
 * - schema errors of the exported project.qde and of each codebook exported as .qdc, checked with
 *   the official xsd/ schemas by xmllint-wasm.
 *
 *   npx tsx scripts/qda-corpus-check.ts [corpus-dir]
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { validateXML } from "xmllint-wasm";
import { main } from "../src/cli/main.js";
import { withIo } from "../src/cli/io.js";
import { readProject, type QdaProject } from "../src/qda/project-read.js";
import { fflate } from "../src/util/zip.js";
import { silentReporter } from "../src/util/reporter.js";

const corpus = process.argv[2] ?? fileURLToPath(new URL("../../shared/corpora/qda/", import.meta.url));

async function colloquy(args: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  const code = await withIo({ out: (t) => void (out += `${t}\n`), err: (t) => void (out += `${t}\n`), reporter: () => silentReporter }, () =>
    main(["node", "colloquy", ...args]),
  );
  return { code, out };
}

/** Errors of a document against one of the official schemas. */
async function schemaErrors(xml: string, xsd: string): Promise<number> {
  const result = await validateXML({ xml: { fileName: "doc.xml", contents: xml }, schema: { fileName: basename(xsd), contents: readFileSync(xsd, "utf8") } });
  return result.errors.length;
}

/** Every (code name, selected text, user name) of a project's text selections. */
function pairs(project: QdaProject, unit: "utf16" | "codepoints", trim = false): string[] {
  const names = new Map<string, string>();
  const walk = (codes: QdaProject["codes"]) => codes.forEach((c) => (names.set(c.guid, c.name), walk(c.children)));
  walk(project.codes);
  const out: string[] = [];
  for (const source of project.sources) {
    const chars = unit === "utf16" ? undefined : Array.from(source.text);
    for (const s of source.selections) {
      const raw = chars ? chars.slice(s.start, s.end).join("") : source.text.slice(s.start, s.end);
      const text = trim ? raw.replace(/\r\n?/g, "\n").trim() : raw.replace(/\r\n?/g, "\n");
      for (const c of s.codings) {
        const user = project.users.get(c.user ?? "");
        out.push(`${names.get(c.code)}\u0000${text}\u0000${user?.name ?? user?.id ?? "unknown"}`);
      }
    }
  }
  return out;
}

/** Share of `before` (a multiset) found in `after`. */
function retained(before: string[], after: string[]): { kept: number; of: number } {
  const left = new Map<string, number>();
  for (const p of after) left.set(p, (left.get(p) ?? 0) + 1);
  let kept = 0;
  for (const p of before) {
    const n = left.get(p) ?? 0;
    if (n > 0) {
      kept++;
      left.set(p, n - 1);
    }
  }
  return { kept, of: before.length };
}

const countCodes = (codes: QdaProject["codes"]): number => codes.reduce((n, c) => n + 1 + countCodes(c.children), 0);

async function check(file: string, xsdDir: string | undefined): Promise<void> {
  const name = basename(file);
  const original = readProject(await readFile(file), name);
  const unit = /nvivo/i.test(original.origin ?? "") ? "utf16" : "codepoints";
  const root = await mkdtemp(join(tmpdir(), "qda-check-"));
  const study = join(root, "study");
  const imported = await colloquy(["import", file, "--study", study]);
  const summary = imported.out.split("\n").find((l) => l.startsWith("✓")) ?? imported.out.trim().split("\n")[0];
  const out = join(root, "out.qdpx");
  const exported = await colloquy(["export", study, "--format", "qdpx", "--out", out]);
  console.log(`\n== ${name} (${original.origin}; positions read as ${unit})`);
  console.log(`  import: exit ${imported.code}; ${summary}`);
  for (const line of imported.out
    .split("\n")
    .filter((l) => /not stored|warning|⚠/i.test(l))
    .slice(0, 6))
    console.log(`    ${line.slice(0, 220)}`);
  if (exported.code !== 0 || !existsSync(out)) {
    console.log(`  export failed: ${exported.out.trim().slice(0, 300)}`);
    return;
  }
  const bytes = await readFile(out);
  const back = readProject(bytes, "out.qdpx");
  const before = pairs(original, unit);
  const after = pairs(back, "codepoints");
  const { kept, of } = retained(before, after);
  const trimmed = retained(pairs(original, unit, true), pairs(back, "codepoints", true));
  const sourcesIn = original.sources.length;
  console.log(
    `  codes: ${countCodes(original.codes)} in the project, ${countCodes(back.codes)} exported again; text sources: ${sourcesIn} readable (+${original.skipped.length} skipped), ${back.sources.length} exported`,
  );
  const share = (k: number, n: number) => `${k}/${n}${n ? ` (${((100 * k) / n).toFixed(1)}%)` : ""}`;
  console.log(
    `  (code, selected text, user) pairs kept: ${share(kept, of)} exactly, ${share(trimmed.kept, trimmed.of)} with white space around the words trimmed; distinct: ${new Set(before).size}`,
  );
  if (xsdDir) {
    const qde = fflate().strFromU8(fflate().unzipSync(bytes)["project.qde"]);
    let qdcErrors = 0;
    const books = existsSync(join(study, "codebooks")) ? readdirSync(join(study, "codebooks")).filter((f) => f.endsWith(".json")) : [];
    for (const book of books) {
      const qdc = join(root, `${book}.qdc`);
      await colloquy(["export", study, "--format", "qdc", "--codebook", book.replace(/\.json$/, ""), "--out", qdc]);
      if (existsSync(qdc)) qdcErrors += await schemaErrors(await readFile(qdc, "utf8"), join(xsdDir, "Codebook-mrt2019.xsd"));
    }
    console.log(
      `  official schema errors: project.qde ${await schemaErrors(qde, join(xsdDir, "Project-mrt2019.xsd"))}, ${books.length} codebook(s) as .qdc ${qdcErrors}`,
    );
  }
}

const xsdDir = existsSync(join(corpus, "xsd")) ? join(corpus, "xsd") : undefined;
if (!xsdDir) console.log(`no ${join(corpus, "xsd")}: schema checks skipped`);
for (const file of readdirSync(corpus).filter((f) => f.endsWith(".qdpx"))) await check(join(corpus, file), xsdDir);
const own = join(await mkdtemp(join(tmpdir(), "qda-check-own-")), "study");
if (xsdDir) {
  await colloquy(["init", own]);
  for (const book of ["bales-ipa", "pragmatic-style"]) {
    const qdc = join(own, `${book}.qdc`);
    await colloquy(["export", own, "--format", "qdc", "--codebook", book, "--out", qdc]);
    if (existsSync(qdc))
      console.log(
        `shipped codebook ${book} as .qdc: ${await schemaErrors(await readFile(qdc, "utf8"), join(xsdDir, "Codebook-mrt2019.xsd"))} official schema error(s)`,
      );
  }
}
