// The house's layers point one way (CONTRIBUTING.md): the analyses are pure, the study knows
// nothing of them, and nothing in src/ keeps process-wide state. Checked on the import graph of
// src/ (type-only imports included: a type import still ties the layers together).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");
const files = readdirSync(SRC, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => join(SRC, f));

const text = new Map(files.map((f) => [f, readFileSync(f, "utf8")]));

/** Every module a file imports (static, re-exported or dynamic, as TypeScript's own scanner finds them): src/ files as paths, packages and node: modules by name. */
function importsOf(file: string): string[] {
  const specifiers = ts.preProcessFile(text.get(file)!, true, true).importedFiles.map((f) => f.fileName);
  return specifiers.map((s) => (s.startsWith(".") ? resolve(dirname(file), s).replace(/\.js$/, ".ts") : s));
}

/** A file and everything it reaches through imports. */
function reach(start: string): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const next of importsOf(queue.pop()!)) {
      if (seen.has(next)) continue;
      seen.add(next);
      if (next.startsWith(SRC)) queue.push(next);
    }
  }
  return seen;
}

const under = (folder: string) => files.filter((f) => relative(SRC, f).startsWith(`${folder}/`));
const inFolder = (module: string, folder: string) => module.startsWith(join(SRC, folder) + "/");
const FILE_ACCESS = ["node:fs", "node:fs/promises", "fs", "fs/promises"];

describe("layers", () => {
  it("src/analysis reaches nothing that touches files, and no study, pipeline, stages or cli module", () => {
    const offences: string[] = [];
    for (const file of under("analysis")) {
      for (const module of reach(file)) {
        if (FILE_ACCESS.includes(module) || ["study", "pipeline", "stages", "cli"].some((f) => inFolder(module, f)))
          offences.push(`${relative(SRC, file)} -> ${module.startsWith(SRC) ? relative(SRC, module) : module}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it("src/study reaches nothing in src/analysis", () => {
    const offences = under("study").flatMap((file) =>
      [...reach(file)].filter((m) => inFolder(m, "analysis")).map((m) => `${relative(SRC, file)} -> ${relative(SRC, m)}`),
    );
    expect(offences).toEqual([]);
  });

  it("nothing in src/ keeps state on globalThis", () => {
    // Comments may name it (documentation); code may not.
    const code = (f: string) =>
      text
        .get(f)!
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/^\s*\/\/.*$/gm, "");
    expect(files.filter((f) => /\bglobalThis\b/.test(code(f))).map((f) => relative(SRC, f))).toEqual([]);
  });

  it("the check sees imports (a file known to import node:fs is caught)", () => {
    expect(reach(join(SRC, "util/fs.ts")).has("node:fs/promises")).toBe(true);
    expect([...reach(join(SRC, "stages/agree.ts"))].some((m) => inFolder(m, "analysis"))).toBe(true);
    // A "/*" inside a string (a path pattern) hides nothing from the scanner.
    expect(importsOf(join(SRC, "cli/import.ts"))).toContain(join(SRC, "ingest/registry.ts"));
  });
});
