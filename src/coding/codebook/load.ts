import { readFile, readdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseYaml } from "../../util/yaml.js";
import { CliError } from "../../util/errors.js";
import { formatIssues } from "../../transcript/validate.js";
import { codebookSchema, type Codebook } from "./schema.js";
import { artifacts } from "../../study/artifacts.js";
import { packageRoot } from "../../util/package-root.js";

/** The shipped codebooks folder, in the colloquy package. */
export function shippedCodebooksDir(): string {
  const dir = join(packageRoot(), "codebooks");
  if (existsSync(join(dir, "bales-ipa.json"))) return dir;
  throw new Error(`the shipped codebooks were not found: no ${join(dir, "bales-ipa.json")}`);
}

/** Parse and validate a codebook's text (JSON or YAML). Errors name the file and the field. */
export function parseCodebook(text: string, where: string): Codebook {
  let value: unknown;
  try {
    value = where.endsWith(".yaml") || where.endsWith(".yml") ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new CliError(`${where}: not valid ${where.match(/\.ya?ml$/) ? "YAML" : "JSON"} (${(error as Error).message})`);
  }
  const parsed = codebookSchema.safeParse(value);
  if (!parsed.success) throw new CliError(`${where}: invalid codebook: ${formatIssues(parsed.error)}`);
  const codebook = parsed.data;
  const problems = crossCheck(codebook);
  if (problems.length > 0) throw new CliError(`${where}: invalid codebook: ${problems.join("; ")}`);
  return codebook;
}

/** Checks zod cannot express: unique ids, known group and fallback references. */
function crossCheck(codebook: Codebook): string[] {
  const problems: string[] = [];
  const unique = (ids: string[], what: string) => {
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      if (seen.has(id)) problems.push(`${what}[${i}].id "${id}" is used twice`);
      seen.add(id);
    });
  };
  if (codebook.kind === "nominal") {
    unique(
      codebook.categories.map((c) => c.id),
      "categories",
    );
    unique(
      codebook.groups.map((g) => g.id),
      "groups",
    );
    const groups = new Set(codebook.groups.map((g) => g.id));
    codebook.categories.forEach((c, i) =>
      (c.groups ?? []).forEach((g) => {
        if (!groups.has(g)) problems.push(`categories[${i}].groups names unknown group "${g}"`);
      }),
    );
    if (codebook.fallback && !codebook.categories.some((c) => c.id === codebook.fallback)) {
      problems.push(`fallback "${codebook.fallback}" is not a category id`);
    }
  } else {
    unique([...codebook.scales.map((s) => s.id), ...codebook.counts.map((c) => c.id)], "scales");
  }
  return problems;
}

/** Load a codebook file by path. */
export async function loadCodebookFile(path: string): Promise<Codebook> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`${path}: cannot read codebook (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  return parseCodebook(text, path);
}

/** Ids of the shipped codebooks. */
export async function shippedCodebookIds(): Promise<string[]> {
  const names = await readdir(shippedCodebooksDir());
  return names
    .filter((n) => n.endsWith(".json"))
    .map((n) => n.slice(0, -5))
    .sort();
}

/**
 * Resolve a codebook reference: a shipped id (bales-ipa), or a path to a file (absolute, or
 * relative to `baseDir`, e.g. the study folder, then to the working directory).
 */
export async function loadCodebook(ref: string, baseDir?: string): Promise<Codebook> {
  const looksLikePath = /[\\/]|\.(json|ya?ml)$/i.test(ref);
  if (!looksLikePath) {
    const path = join(shippedCodebooksDir(), `${ref}.json`);
    if (existsSync(path)) return loadCodebookFile(path);
    const ids = await shippedCodebookIds();
    throw new CliError(`unknown codebook "${ref}": shipped codebooks are ${ids.join(", ")}; or give a path to your own codebook file`);
  }
  const candidates = [baseDir ? resolve(baseDir, ref) : undefined, resolve(ref)].filter((p): p is string => Boolean(p));
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new CliError(`${ref}: codebook file not found`);
  return loadCodebookFile(found);
}

/**
 * A codebook as a study sees it: one the study made (codebooks/<id>.json, from an imported
 * REFI-QDA project), else a shipped id or a path (relative to the study first).
 */
export async function loadStudyCodebook(study: string, ref: string): Promise<Codebook> {
  if (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(ref) && !/\.(json|ya?ml)$/i.test(ref)) {
    const own = artifacts.codebook.path(study, ref);
    if (existsSync(own)) return loadCodebookFile(own);
  }
  return loadCodebook(ref, study);
}
