import { join } from "node:path";
import { loadStudyCodebook } from "../coding/codebook/load.js";
import type { NominalCodebook } from "../coding/codebook/schema.js";
import { listCoders } from "../coding/store.js";
import { versionCounts } from "../coding/records.js";
import type { StudyReader } from "../study/reader.js";
import type { Session } from "../transcript/schema.js";
import { CliError } from "../util/errors.js";
import { codedTurns, type CodedTurns } from "../analysis/shared/table.js";

/** A study's sessions joined with one coder's codes of one nominal codebook (what compare and stats read). */
export interface LoadedCodes {
  sessions: Session[];
  codebook: NominalCodebook;
  coder: string;
  data: CodedTurns;
  /** Code records made under another codebook version than the one loaded (counted, but worth a look). */
  otherVersions: { version: string; records: number }[];
}

/**
 * Pick the coder: the one asked for, else the only one there is, else the first coder colloquy.json
 * names for the codebook (`codebooks[].coders`) that has codes. With several, none named and none
 * configured, the choice changes every number, so it is an error listing them rather than a guess.
 */
export function chooseCoder(
  available: readonly string[],
  wanted: string | undefined,
  codebook: string,
  study: string,
  configured: readonly string[] = [],
): string {
  if (available.length === 0) {
    throw new CliError(`${study}: no codes for codebook "${codebook}" yet; code the turns first with \`colloquy code ${study} --codebook ${codebook}\``);
  }
  if (wanted !== undefined) {
    if (!available.includes(wanted))
      throw new CliError(`--coder ${wanted}: no codes from that coder for codebook "${codebook}"; coders are: ${available.join(", ")}`);
    return wanted;
  }
  const fromConfig = available.length > 1 ? configured.find((c) => available.includes(c)) : undefined;
  if (fromConfig !== undefined) return fromConfig;
  if (available.length > 1)
    throw new CliError(
      `codebook "${codebook}" has codes from several coders (${available.join(", ")}); choose one with --coder, or name it as "analysisCoder" of this codebook in colloquy.json`,
    );
  return available[0];
}

/** Load a nominal codebook and one coder's codes, joined with the reader's sessions. */
export async function loadCodedStudy(
  study: string,
  codebookRef: string,
  coder: string | undefined,
  reader: StudyReader,
  plans: readonly { codebook: string; coders: readonly string[]; analysisCoder?: string }[] = [],
): Promise<LoadedCodes> {
  const codebook = await loadStudyCodebook(study, codebookRef);
  if (codebook.kind !== "nominal") {
    throw new CliError(`codebook "${codebook.id}" rates scales; compare and stats count categories, so give a nominal codebook such as bales-ipa`);
  }
  const index = plans.findIndex((p) => p.codebook === codebook.id || p.codebook === codebookRef);
  const plan = plans[index];
  const available = (await listCoders(study))[codebook.id] ?? [];
  // A configured analysisCoder without codes (not imported yet, a misspelt name) is refused, as
  // colloquy study refuses it: falling back to another coder would change every number unsaid.
  if (coder === undefined && plan?.analysisCoder && available.length > 0 && !available.includes(plan.analysisCoder))
    throw new CliError(
      `${join(study, "colloquy.json")}: codebooks[${index}].analysisCoder: ${plan.analysisCoder} has no codes for "${codebook.id}" (coders with codes: ${available.join(", ")}); import them, correct the name, or choose a coder with --coder`,
    );
  const configured = plan ? [...(plan.analysisCoder ? [plan.analysisCoder] : []), ...plan.coders] : [];
  const chosen = chooseCoder(available, coder, codebook.id, study, configured);
  const sessions = await reader.sessions();
  const records = await reader.codeValues(codebook.id, chosen);
  const versions = versionCounts(records);
  return {
    sessions,
    codebook,
    coder: chosen,
    data: codedTurns(
      sessions,
      records,
      codebook.categories.map((c) => c.id),
    ),
    otherVersions: [...versions].filter(([version]) => version !== codebook.version).map(([version, n]) => ({ version, records: n })),
  };
}
