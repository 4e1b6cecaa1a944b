import type { Session } from "../../transcript/schema.js";
import { NO_CONDITION } from "./table.js";

/**
 * The study's design, decided once and used by every analysis that compares conditions
 * (compare, topics, concepts, the dashboard, the report), so that no two of them assume
 * different designs for the same study.
 *
 * "within": the same participants (or runs) took part in several conditions, so their values
 * are paired across conditions (Wilcoxon signed-rank, paired t); "between": each condition is an
 * independent sample (Mann-Whitney U, Welch's t). `compare.design` in colloquy.json declares it;
 * without it, it is inferred from the sessions by one rule (below) and every output says so.
 */
export type Design = "within" | "between";

export interface StudyDesign {
  design: Design;
  /** Where the design came from: a command-line flag, colloquy.json, or the data. */
  source: "flag" | "colloquy.json" | "inferred";
  /** One sentence a reader can check, e.g. "inferred: 4 participants took part in more than one condition". */
  reason: string;
}

/**
 * Participants (by name; system participants excluded) who took part in two or more
 * conditions. The inference rule: "within" when at least two such participants exist, since
 * one repeated participant is too few to pair; else "between".
 */
export function repeatedParticipants(sessions: readonly Session[]): string[] {
  const conditionsOf = new Map<string, Set<string>>();
  for (const s of sessions) {
    for (const p of s.participants) {
      if (p.kind === "system") continue;
      let set = conditionsOf.get(p.name);
      if (!set) conditionsOf.set(p.name, (set = new Set()));
      set.add(s.metadata.condition ?? NO_CONDITION);
    }
  }
  return [...conditionsOf]
    .filter(([, c]) => c.size >= 2)
    .map(([name]) => name)
    .sort();
}

/** The design from a flag, else colloquy.json compare.design, else inferred from the sessions. */
export function resolveDesign(sessions: readonly Session[], declared: { flag?: Design; config?: Design }): StudyDesign {
  if (declared.flag) return { design: declared.flag, source: "flag", reason: `--design ${declared.flag}` };
  if (declared.config) return { design: declared.config, source: "colloquy.json", reason: `declared in colloquy.json (compare.design = "${declared.config}")` };
  const repeated = repeatedParticipants(sessions);
  const conditions = new Set(sessions.map((s) => s.metadata.condition ?? NO_CONDITION)).size;
  if (repeated.length >= 2) {
    return {
      design: "within",
      source: "inferred",
      reason: `inferred: ${repeated.length} participants took part in more than one condition (set compare.design in colloquy.json to declare it)`,
    };
  }
  return {
    design: "between",
    source: "inferred",
    reason:
      conditions < 2
        ? "inferred: the study has fewer than two conditions (set compare.design in colloquy.json to declare it)"
        : `inferred: ${repeated.length === 0 ? "no participant" : "only one participant"} took part in more than one condition (set compare.design in colloquy.json to declare it)`,
  };
}

/** "within-subject (paired by participant)" / "between-subject (independent samples)". */
export function describeDesign(design: Design, unit: "participant" | "session" = "participant"): string {
  return design === "within" ? `within-subject (paired by ${unit === "session" ? "run" : "participant"})` : "between-subject (independent samples)";
}
