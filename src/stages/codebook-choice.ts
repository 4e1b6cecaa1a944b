import { loadStudyCodebook } from "../coding/codebook/load.js";
import type { Codebook } from "../coding/codebook/schema.js";
import { CliError } from "../util/errors.js";
import type { StudyContext } from "./context.js";

/** What a command can work with: categories only (counting commands), and codes already there (analyses). */
export interface CodebookNeed {
  /** The command, for the message when nothing fits ("compare"). */
  command: string;
  /** Only nominal codebooks (compare, stats and the coding page count categories). */
  nominal?: boolean;
  /** Only codebooks with codes: by any coder (true) or by every one of these coders. */
  coded?: boolean | readonly string[];
}

/** A codebook a command could take: the reference it is named by (colloquy.json's, or its id) and its definition. */
export interface CodebookChoice {
  ref: string;
  codebook: Codebook;
}

type Study = Pick<StudyContext, "dir" | "config" | "coders">;

/**
 * The codebooks a command can take, in the order of the one default rule (docs/statistics.md
 * "Which codebook, which coder"): the codebooks colloquy.json lists, in its order, then those the
 * study has codes of that it does not list; each kept when it fits the command's need. A listed
 * codebook that cannot be loaded is an error (colloquy.json is wrong); codes of a codebook the
 * study cannot load (e.g. topic reviews) are not candidates.
 */
export async function codebookCandidates(study: Study, need: CodebookNeed): Promise<CodebookChoice[]> {
  const coders = await study.coders();
  const fits = (codebook: Codebook): boolean => {
    if (need.nominal && codebook.kind !== "nominal") return false;
    const have = coders[codebook.id] ?? [];
    if (need.coded === true) return have.length > 0;
    if (need.coded) return need.coded.length > 0 && need.coded.every((c) => have.includes(c));
    return true;
  };
  const out: CodebookChoice[] = [];
  const seen = new Set<string>();
  for (const plan of study.config.codebooks) {
    const codebook = await loadStudyCodebook(study.dir, plan.codebook);
    if (seen.has(codebook.id)) continue;
    seen.add(codebook.id);
    if (fits(codebook)) out.push({ ref: plan.codebook, codebook });
  }
  for (const id of Object.keys(coders).sort()) {
    if (seen.has(id)) continue;
    seen.add(id);
    const codebook = await loadStudyCodebook(study.dir, id).catch(() => undefined);
    if (codebook && codebook.id === id && fits(codebook)) out.push({ ref: id, codebook });
  }
  return out;
}

/**
 * The one default rule for `--codebook`, the same in every command: the codebook given; else the
 * first codebook colloquy.json lists that the command can use; else the only other codebook the
 * study has codes of that it can use; else an error listing the choices.
 */
export async function chooseCodebook(study: Study, given: string | undefined, need: CodebookNeed): Promise<string> {
  return (await chosenCodebook(study, given, need)).ref;
}

/**
 * {@link chooseCodebook} with the chosen codebook's id too (what code files are named by; a
 * colloquy.json reference may be a file). A codebook given is taken as both: commands load it.
 */
export async function chosenCodebook(study: Study, given: string | undefined, need: CodebookNeed): Promise<{ ref: string; id: string }> {
  if (given !== undefined) return { ref: given, id: given };
  const candidates = await codebookCandidates(study, need);
  const listed = candidates.filter((c) => study.config.codebooks.some((p) => p.codebook === c.ref));
  const chosen = listed[0] ?? (candidates.length === 1 ? candidates[0] : undefined);
  if (!chosen) throw new CliError(noCodebook(study, need, candidates));
  return { ref: chosen.ref, id: chosen.codebook.id };
}

function noCodebook(study: Study, need: CodebookNeed, candidates: CodebookChoice[]): string {
  const kind = need.nominal ? "nominal codebook (categories)" : "codebook";
  const coded = need.coded === true ? " with codes" : need.coded ? ` coded by ${need.coded.join(", ")}` : "";
  const listed = study.config.codebooks.map((p) => p.codebook);
  const head = `${need.command}: no --codebook given, and `;
  if (candidates.length > 1)
    return `${head}colloquy.json lists no ${kind}${coded} while the study has several: ${candidates.map((c) => c.ref).join(", ")}; choose one with --codebook <id> (or list it first under "codebooks" in colloquy.json)`;
  return (
    `${head}${study.dir} has no ${kind}${coded} (colloquy.json lists ${listed.join(", ") || "none"}); ` +
    (need.coded
      ? `code the turns first (colloquy code ${study.dir}), or pass --codebook <id>`
      : 'pass --codebook <id>, or list one under "codebooks" in colloquy.json')
  );
}
