import { loadCodebook } from "../../coding/codebook/load.js";
import type { NominalCodebook } from "../../coding/codebook/schema.js";
import { listCoders } from "../../coding/store.js";
import { summariseRecords } from "../../coding/records.js";
import { diskReader, type StudyReader } from "../../study/reader.js";
import { readerDigests, type CodeDigests } from "../../study/code-digests.js";
import { openSessionMemo } from "../../study/session-memo.js";
import type { Session } from "../../transcript/schema.js";
import { CliError } from "../../util/errors.js";
import { codedTurns, type CodedTurns } from "../shared/table.js";
import { codedTurnsFromDigests, type CodedSessionPart } from "./session-parts.js";

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
      `codebook "${codebook}" has codes from several coders (${available.join(", ")}); choose one with --coder, or name it first under "coders" of this codebook in colloquy.json`,
    );
  return available[0];
}

/**
 * Load sessions, a nominal codebook and one coder's codes, joined. With `incremental` (the whole
 * study, not a selection of it) each session's part of the join is kept in
 * `.cache/memo/coded/<codebook>/<coder>.v8` and only new or changed sessions are joined anew; the
 * join is also shared within the process, so compare and stats of one run make it once. A reader
 * that keeps digests of the records (StudyReader.codeDigests) then reads the records of those
 * sessions only, not every record.
 */
export async function loadCodedStudy(
  study: string,
  codebookRef: string,
  coder?: string,
  sessions?: Session[],
  reader: StudyReader = diskReader(study),
  options: { incremental?: boolean; plans?: readonly { codebook: string; coders: readonly string[] }[] } = {},
): Promise<LoadedCodes> {
  const codebook = await loadCodebook(codebookRef, study);
  if (codebook.kind !== "nominal") {
    throw new CliError(`codebook "${codebook.id}" rates scales; compare and stats count categories, so give a nominal codebook such as bales-ipa`);
  }
  const coders = (await listCoders(study))[codebook.id] ?? [];
  const plan = options.plans?.find((p) => p.codebook === codebook.id || p.codebook === codebookRef);
  const chosen = chooseCoder(coders, coder, codebook.id, study, plan?.coders);
  const loaded = sessions ?? (await reader.sessions());
  const labels = codebook.categories.map((c) => c.id);
  const name = [codebook.id, chosen] as const;
  let data: CodedTurns;
  let versions: ReadonlyMap<string, number>;
  if (options.incremental) {
    // With kept digests of the records (the pipeline's context), only the records of sessions whose part of the join is not kept are read.
    const digests = await readerDigests(reader, codebook.id, chosen);
    versions = digests.versions;
    data = await joinIncrementally(study, name, loaded, labels, digests);
  } else {
    const records = await reader.codes(codebook.id, chosen);
    versions = summariseRecords(records).versions;
    data = codedTurns(loaded, records, labels);
  }
  return {
    sessions: loaded,
    codebook,
    coder: chosen,
    data,
    otherVersions: [...versions].filter(([version]) => version !== codebook.version).map(([version, n]) => ({ version, records: n })),
  };
}

/** Joins made in this process, by the digests they joined (a study context makes each coder's once), so compare and stats of one run join once. */
const joined = new WeakMap<CodeDigests, { sessions: readonly Session[]; labels: string; data: CodedTurns }>();

async function joinIncrementally(
  study: string,
  name: readonly [codebook: string, coder: string],
  sessions: Session[],
  labels: string[],
  digests: CodeDigests,
): Promise<CodedTurns> {
  const key = JSON.stringify(labels);
  const earlier = joined.get(digests);
  if (earlier && earlier.sessions === sessions && earlier.labels === key) return earlier.data;
  const memo = await openSessionMemo<CodedSessionPart>(study, ["coded", ...name], { labels });
  const data = await codedTurnsFromDigests(sessions, digests, labels, memo);
  await memo.save();
  joined.set(digests, { sessions, labels: key, data });
  return data;
}
