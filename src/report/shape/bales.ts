import type { Codebook, NominalCodebook } from "../../coding/codebook/schema.js";
import type { Session } from "../../transcript/schema.js";
import { phaseOverall, profileFrame, profilesBySpeaker, type ProfileFrame } from "../../analysis/stats/bales.js";
import { THIRDS } from "../../analysis/shared/measures.js";
import { codedTurns, type CodedTurns } from "../../analysis/shared/table.js";
import type { CodeSet } from "../load.js";
import type { BalesSet, CodebookInfo } from "../types.js";
import { usableCounts, type SessionCounts } from "./parts.js";
import { categoryIds } from "./common.js";

/** A Bales-style codebook: nominal with groups of kind "area" (bales-ipa, or a researcher's variant). */
export function isBalesLike(codebook: CodebookInfo): boolean {
  return codebook.kind === "nominal" && codebook.groups.some((g) => g.kind === "area");
}

/** The Bales view's frame for a codebook's categories (its groups are in `info`; its fallback only in the definition), or null when it is not Bales-like. */
export function balesFrame(info: CodebookInfo, codebook: Codebook | null): ProfileFrame | null {
  return isBalesLike(info) ? profileFrame(categoryIds(info), codebook?.kind === "nominal" ? codebook : undefined) : null;
}

/**
 * Each member's act profile and the phase movement across session thirds for one coder, as
 * `colloquy stats` computes them (src/analysis/stats/bales.ts): profiles pooled per speaker
 * (profilesBySpeaker; total = acts, the codebook's fallback category excluded), and the acts of
 * each third of each session pooled over sessions (phaseOverall, phaseMovement's `overall`: act k of n in third floor(3k/n)).
 */
export function buildBalesSet(
  sessions: Session[],
  set: CodeSet,
  info: CodebookInfo,
  codebook: NominalCodebook | null,
  coded?: CodedTurns,
  /** Each session's counts as its part keeps them (parts.ts SessionCounts), numbered as the codebook's categories; else counted from the join. */
  counts?: readonly SessionCounts[],
): BalesSet {
  const groupMembers = (kind: string) =>
    info.groups
      .filter((g) => g.kind === kind)
      .map((g) => ({ id: g.id, label: g.label, categories: info.categories.filter((c) => c.groups.includes(g.id)).map((c) => c.id) }));
  const data = coded ?? codedTurns(sessions, set.records, categoryIds(info));
  const frame = profileFrame(data.labels, codebook ?? undefined);
  // When they serve, the join's labels are the categories, and this frame is balesFrame's.
  const kept = usableCounts(counts, data, info);
  const phases =
    frame.groups.size > 0
      ? phaseOverall(
          data,
          frame,
          kept?.map((p) => p.phases!),
        )
      : null;
  return {
    codebook: set.codebook,
    coder: set.coder,
    areas: groupMembers("area"),
    members: profilesBySpeaker(
      data,
      frame,
      kept?.map((p) => p.members),
    ).map((s) => ({
      key: s.name,
      kind: s.kind,
      total: s.profile.acts,
      counts: s.profile.counts,
      percent: s.profile.percent,
    })),
    phases: THIRDS.map((phase, j) => ({ phase, total: phases?.[j].acts ?? 0, counts: phases?.[j].categories ?? {}, shares: phases?.[j].shares ?? {} })),
    problems: groupMembers("problem"),
  };
}
