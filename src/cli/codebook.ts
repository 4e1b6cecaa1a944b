import type { Command } from "commander";
import { STDOUT, writeOutput } from "./output.js";
import { CliError } from "../util/errors.js";
import { requireStudy } from "./study-arg.js";
import type { Codebook } from "../coding/codebook/schema.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";

/** One line saying what a codebook contains, e.g. "nominal, 13 categories, 10 groups". */
export function codebookSummary(codebook: Codebook): string {
  if (codebook.kind === "nominal") {
    const parts = [`nominal (${codebook.multiple ? "several codes" : "one code"} per ${codebook.unit})`, `${codebook.categories.length} categories`];
    if (codebook.groups.length > 0) parts.push(`${codebook.groups.length} groups`);
    if (codebook.fallback) parts.push(`fallback "${codebook.fallback}"`);
    return parts.join(", ");
  }
  const points = [...new Set(codebook.scales.map((s) => s.points))].join("/");
  const parts = [`scales (per ${codebook.unit})`, `${codebook.scales.length} scale${codebook.scales.length === 1 ? "" : "s"} of ${points} points`];
  if (codebook.counts.length > 0) parts.push(`${codebook.counts.length} count${codebook.counts.length === 1 ? "" : "s"}`);
  return parts.join(", ");
}

/** Advice that does not make a codebook invalid but weakens coding (shown by `validate`). */
export function codebookWarnings(codebook: Codebook): string[] {
  const warnings: string[] = [];
  if (!codebook.references?.length) warnings.push("no references: cite the source the definitions follow");
  if (codebook.kind === "nominal") {
    codebook.categories.forEach((c, i) => {
      if (c.examples.length === 0) warnings.push(`categories[${i}] "${c.id}" has no examples (coders, human or LLM, decide better with 2-4)`);
    });
    if (!codebook.fallback) warnings.push('no fallback category: turns that fit nothing have to be forced into a category (add e.g. "none")');
  }
  return warnings;
}

/** Readable listing of a codebook: definitions, examples, groups, anchors; `rules`: whether a rule set codes it. */
export function formatCodebook(codebook: Codebook, rules: boolean): string {
  const lines: string[] = [`${codebook.title}`, `id ${codebook.id}, version ${codebook.version}: ${codebookSummary(codebook)}`];
  lines.push(`rule coder: ${rules ? "yes (--coder rules)" : "no (use --coder llm or human codes)"}`);
  if (codebook.description) lines.push("", codebook.description);
  if (codebook.instructions) lines.push("", `Instructions: ${codebook.instructions}`);
  if (codebook.kind === "nominal") {
    const groupIds = new Set<string>();
    lines.push("", "Categories:");
    codebook.categories.forEach((c, i) => {
      const tag = c.id === codebook.fallback ? " (fallback)" : "";
      lines.push(`  ${String(i + 1).padStart(2)}. ${c.label} [${c.id}]${tag}`);
      lines.push(`      ${c.definition}`);
      for (const e of c.examples) lines.push(`      e.g. ${JSON.stringify(e)}`);
      if (c.groups?.length) lines.push(`      groups: ${c.groups.join(", ")}`);
      c.groups?.forEach((g) => groupIds.add(g));
    });
    if (codebook.groups.length > 0) {
      lines.push("", "Groups:");
      for (const g of codebook.groups) {
        const members = codebook.categories.filter((c) => c.groups?.includes(g.id)).map((c) => c.id);
        lines.push(`  ${g.label} [${g.id}]${g.kind ? ` (${g.kind})` : ""}: ${members.join(", ") || "(no categories)"}`);
      }
    }
  } else {
    lines.push("", "Scales:");
    for (const s of codebook.scales) {
      lines.push(`  ${s.label} [${s.id}], 1-${s.points}${s.unit ? `, per ${s.unit}` : ""}`);
      lines.push(`      ${s.definition}`);
      s.anchors.forEach((a, i) => lines.push(`      ${i + 1}: ${a}`));
    }
    if (codebook.counts.length > 0) {
      lines.push("", "Counts:");
      for (const c of codebook.counts) {
        lines.push(`  ${c.label} [${c.id}]${c.unit ? `, per ${c.unit}` : ""}`);
        lines.push(`      ${c.definition}`);
      }
    }
  }
  if (codebook.references?.length) {
    lines.push("", "References:");
    for (const r of codebook.references) lines.push(`  - ${r}`);
  }
  return lines.join("\n");
}

/** `colloquy codebook validate|show|list`. */
export function registerCodebook(program: Command): void {
  const command = program.command("codebook").description("validate, show and list codebooks (shipped or your own)");

  command
    .command("validate")
    .description("check a codebook file (JSON or YAML); prints OK with a summary, or the errors naming each field")
    .argument("<file>", "path to the codebook file")
    .action(async (file: string) => {
      const { loadCodebookFile } = await import("../coding/codebook/load.js");
      const codebook = await loadCodebookFile(file); // throws a CliError naming the file and field
      io().out(`OK ${file}: "${codebook.id}" version ${codebook.version}, ${codebookSummary(codebook)}`);
      for (const w of codebookWarnings(codebook)) io().out(`  warning: ${w}`);
    });

  command
    .command("show")
    .description("print a codebook's categories or scales with their definitions")
    .argument("<codebook>", "shipped id (bales-ipa) or path to a codebook file")
    .option("--json", "print the validated codebook as JSON")
    .action(async (ref: string, options: { json?: boolean }) => {
      const { loadCodebook } = await import("../coding/codebook/load.js");
      const { rulesSupport } = await import("../coding/rules/index.js");
      const codebook = await loadCodebook(ref);
      if (options.json) printJson(codebook);
      else io().out(formatCodebook(codebook, rulesSupport(codebook)));
    });

  command
    .command("list")
    .description("list the shipped codebooks")
    .option("--json", "print the list as JSON")
    .action(async (options: { json?: boolean }) => {
      const { loadCodebook, shippedCodebookIds } = await import("../coding/codebook/load.js");
      const { rulesSupport } = await import("../coding/rules/index.js");
      const ids = await shippedCodebookIds();
      const books = await Promise.all(ids.map((id) => loadCodebook(id)));
      if (options.json) {
        printJson(books.map((b) => ({ id: b.id, version: b.version, kind: b.kind, title: b.title, summary: codebookSummary(b), rules: rulesSupport(b) })));
        return;
      }
      const width = Math.max(...books.map((b) => b.id.length));
      for (const b of books) {
        io().out(`${b.id.padEnd(width)}  v${b.version}  ${b.title}`);
        io().out(`${" ".repeat(width)}  ${codebookSummary(b)}${rulesSupport(b) ? "; rule coder available" : ""}`);
      }
      io().out(`\nShow one with: colloquy codebook show <id>; use your own with --codebook path/to/file.json`);
    });

  command
    .command("import")
    .description("make Colloquy codebook(s) of a REFI-QDA codebook (.qdc) from NVivo, ATLAS.ti, MAXQDA or QualCoder")
    .argument("<file>", "the .qdc file")
    .option("--out <file>", "where to write the codebook JSON (default: <id>.json here); - prints it")
    .option("--study <dir>", "write it into the study's codebooks/ folder instead (usable as --codebook <id> there)")
    .option("--id <id>", "id of the codebook (default: from the file name)")
    .action(async (file: string, options: { out?: string; study?: string; id?: string }) => {
      const { importQdcCodebook } = await import("../stages/qda-export.js");
      const write = async () => {
        if (options.out !== undefined && options.study) throw new CliError("give --out or --study, not both");
        const {
          result: { written, warnings },
          streamed,
          say,
        } = await writeOutput(options.out, (out) => importQdcCodebook(file, { ...options, out }));
        for (const w of warnings) say(`  warning: ${w}`);
        for (const { path, codebook } of written)
          say(
            `Wrote ${streamed ? (options.out === STDOUT ? "standard output" : options.out) : path}: "${codebook.id}" version ${codebook.version}, ${codebookSummary(codebook)}`,
          );
      };
      if (options.study) requireStudy(options.study);
      if (options.study) await writing(options.study, "codebook import", write, { create: true });
      else await write();
    });
}
