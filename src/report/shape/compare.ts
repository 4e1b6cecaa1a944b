import type { Session } from "../../transcript/schema.js";
import type { CompareSettings } from "../../study/config.js";
import type { CodeSet } from "../load.js";
import type { CodebookInfo, CompareSet, Counts } from "../types.js";
import { conditionOf } from "./common.js";

/**
 * Conditions vs control from the codes themselves, with the study's compare settings applied
 * the way `colloquy compare` applies them: codes collapsed (new id -> codes it replaces) or
 * dropped, conditions merged into groups, counts optionally divided by runs (sessions) per group.
 * Percentage difference = (count - control) / control * 100, e.g. 7 against 1 is +600%.
 */
export function buildCompareSet(
  sessions: Session[],
  set: CodeSet,
  codebook: CodebookInfo,
  settings: CompareSettings,
  conditions: string[],
): CompareSet | { empty: string } {
  const groupOf = new Map<string, string>();
  for (const [group, members] of Object.entries(settings.conditionGroups ?? {})) for (const c of members) groupOf.set(c, group);
  const groups: string[] = [];
  for (const c of conditions) {
    const g = groupOf.get(c) ?? c;
    if (!groups.includes(g)) groups.push(g);
  }
  const control = settings.control !== undefined ? groupOf.get(settings.control) ?? settings.control : groups.find((g) => /^control$/i.test(g));
  if (!control) {
    return { empty: `No control condition: set "compare": {"control": "<condition>"} in colloquy.json (conditions: ${conditions.join(", ")}).` };
  }
  if (!groups.includes(control)) {
    return { empty: `The control condition "${control}" has no sessions (conditions: ${conditions.join(", ")}); fix "compare.control" in colloquy.json.` };
  }
  const collapse = settings.collapse ?? {};
  const into = new Map<string, string>();
  for (const [target, sources] of Object.entries(collapse)) for (const s of sources) into.set(s, target);
  const dropped = settings.drop ?? [];
  const dropSet = new Set(dropped);
  const codes: { id: string; label: string }[] = [];
  for (const c of codebook.categories) {
    if (dropSet.has(c.id)) continue;
    const id = into.get(c.id) ?? c.id;
    if (dropSet.has(id) || codes.some((x) => x.id === id)) continue;
    codes.push({ id, label: into.has(c.id) ? id : c.label });
  }
  const counts: Record<string, Counts> = {};
  const runs: Record<string, number> = {};
  for (const g of groups) {
    counts[g] = Object.fromEntries(codes.map((c) => [c.id, 0]));
    runs[g] = 0;
  }
  for (const session of sessions) {
    const g = groupOf.get(conditionOf(session)) ?? conditionOf(session);
    runs[g]++;
    for (const turn of session.turns) {
      for (const raw of set.byTurn.get(`${session.id}\u0000${turn.id}`)?.codes ?? []) {
        const id = into.get(raw) ?? raw;
        if (dropSet.has(raw) || dropSet.has(id) || counts[g][id] === undefined) continue;
        counts[g][id]++;
      }
    }
  }
  const normalised = settings.normaliseByRuns === true;
  const value = (g: string, code: string) => (normalised ? counts[g][code] / Math.max(1, runs[g]) : counts[g][code]);
  const others = groups.filter((g) => g !== control);
  const cells = others.flatMap((condition) =>
    codes.map((c) => {
      const ctrl = value(control, c.id);
      return {
        condition,
        code: c.id,
        count: counts[condition][c.id],
        controlCount: counts[control][c.id],
        pctDiff: ctrl === 0 ? null : ((value(condition, c.id) - ctrl) / ctrl) * 100,
      };
    }),
  );
  return {
    codebook: set.codebook,
    coder: set.coder,
    control,
    conditions: others,
    codes,
    runs,
    normalised,
    counts,
    cells,
    collapse,
    dropped,
    tests: [],
    source: "codes",
  };
}
