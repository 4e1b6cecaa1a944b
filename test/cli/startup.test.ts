// Fast start-up (issue 11): `colloquy --version`, `--help` and a command's own help load only
// commander and Colloquy's light CLI modules; a command's heavy work (stages, analyses, the
// artifact registry and its zod schemas, the OpenAI SDK, compromise, d3…) is imported when it
// runs. Checked on the static imports, not by timing (speed is measured by bench/, see README).
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

/** Static, non-type imports of a TypeScript file: `import … from "x"` and `export … from "x"`. */
function staticImports(file: string): string[] {
  const code = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  for (const m of code.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?\bfrom\s+"([^"]+)"|^import\s+"([^"]+)"/gm)) {
    if (m[1]) continue; // `import type …` is erased by the compiler
    out.push(m[2] ?? m[3]);
  }
  return out;
}

/** Every file main.ts loads before any command runs, and the packages they import. */
function startupClosure(): { files: string[]; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
        expect(existsSync(target), `${relative(root, file)} imports ${spec}`).toBe(true);
        visit(target);
      } else if (!spec.startsWith("node:")) packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
    }
  };
  visit(join(root, "src/cli/main.ts"));
  return { files: [...files].map((f) => relative(root, f)).sort(), packages };
}

describe("CLI start-up", () => {
  const { files, packages } = startupClosure();

  it("registers every command from its own module", () => {
    expect(files).toEqual(expect.arrayContaining(["src/cli/commands.ts", "src/cli/study.ts", "src/cli/import.ts", "src/cli/topics.ts"]));
  });

  it("loads no package but commander before a command runs", () => {
    expect([...packages]).toEqual(["commander"]);
  });

  it("loads no stage, analysis, report, study registry or LLM module before a command runs", () => {
    const heavy = files.filter((f) => /^src\/(stages|analysis|report|study|llm|orchestrator|ingest|qda|coding\/(?!llm\/prompt\.ts))/.test(f));
    expect(heavy).toEqual([]);
  });
});
