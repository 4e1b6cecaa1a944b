import type { Session } from "../../transcript/schema.js";
import type { TestId } from "../inference/decision.js";
import type { Adjustment } from "../inference/multiplicity.js";
import { DEFAULT_RESAMPLES } from "../inference/permutation.js";
import { NO_CONDITION } from "./table.js";

/**
 * The study's design, decided once and used by every analysis that compares conditions
 * (compare, topics, concepts, the dashboard, the report), so that no two of them assume
 * different designs, units or n for the same study.
 *
 * The design names its unit of analysis, the thing one observation is:
 *  - "session" (the default): each session is one observation and the conditions are
 *    independent samples of sessions ("between");
 *  - "participant": a person, by participant id. With "within" the same people took part in
 *    several conditions and are paired by id; with "between" each person is one observation.
 * Only people are units of a pairing: AI agents and simulated participants are not (the same
 * prompt in two sessions is not the same subject) unless the study declares
 * `compare.agentUnits`. A session belongs to one condition, so sessions are never paired.
 * Nothing is inferred toward pairing: a within-subject design is declared in colloquy.json
 * (`compare.design`, `compare.unit`), and without it the sessions are the units and the reason
 * says what the data would support.
 */
export type Design = "within" | "between";
export type Unit = "session" | "participant";

export interface StudyDesign {
  design: Design;
  unit: Unit;
  /** Agents and simulated participants count as participant units (declared only). */
  agentUnits: boolean;
  /** Where the design came from: a command-line flag, colloquy.json, or the default. */
  source: "flag" | "colloquy.json" | "default";
  /** One sentence a reader can check. */
  reason: string;
}

/** What the study (or the command line) declares; anything missing takes the default. */
export interface DeclaredDesign {
  design?: Design;
  unit?: Unit;
  agentUnits?: boolean;
}

/** Whether a participant of this kind can be a participant unit. */
export function isPersonUnit(kind: string, agentUnits: boolean): boolean {
  return kind === "human" || (agentUnits && (kind === "ai" || kind === "simulated"));
}

/** People (by id; agents only when declared) who took part in two or more conditions, sorted. */
export function repeatedParticipants(sessions: readonly Session[], agentUnits = false): string[] {
  const conditionsOf = new Map<string, Set<string>>();
  for (const s of sessions) {
    for (const p of s.participants) {
      if (!isPersonUnit(p.kind, agentUnits)) continue;
      let set = conditionsOf.get(p.id);
      if (!set) conditionsOf.set(p.id, (set = new Set()));
      set.add(s.metadata.condition ?? NO_CONDITION);
    }
  }
  return [...conditionsOf]
    .filter(([, c]) => c.size >= 2)
    .map(([id]) => id)
    .sort();
}

/**
 * The design from flags over colloquy.json over the default (sessions as independent units).
 * Throws when the declaration cannot hold: sessions cannot be paired across conditions.
 */
export function resolveDesign(sessions: readonly Session[], declared: { flag?: DeclaredDesign; config?: DeclaredDesign }): StudyDesign {
  const flag = declared.flag ?? {};
  const config = declared.config ?? {};
  const design = flag.design ?? config.design;
  const agentUnits = flag.agentUnits ?? config.agentUnits ?? false;
  // "within" pairs people; a declared participant unit without a design is a between-person comparison.
  const unit = flag.unit ?? config.unit ?? (design === "within" ? "participant" : "session");
  if (design === "within" && unit === "session") {
    throw new Error(
      'a session belongs to one condition, so sessions cannot be paired across conditions; set "unit": "participant" under "compare" in colloquy.json to pair people by id, or "design": "between" to compare sessions as independent units',
    );
  }
  const given = flag.design !== undefined || flag.unit !== undefined ? "flag" : design !== undefined || config.unit !== undefined ? "colloquy.json" : "default";
  const who = agentUnits ? "participants (agents included, as declared)" : "people (human participants; agents are not paired)";
  const repeated = repeatedParticipants(sessions, agentUnits);
  // With agents declared as units the repeated ones are mostly agents: "people" would misname them.
  const counted = (n: number) => (agentUnits ? `${n} participant${n === 1 ? "" : "s"}` : n === 1 ? "1 person" : `${n} people`);
  if (given !== "default") {
    const what =
      design === "within"
        ? `within-subject: ${who} paired by participant id across conditions`
        : unit === "participant"
          ? `between-subject: each of the ${who} is one observation`
          : "between-subject: each session is one observation";
    // Declared between-subject, yet someone is in two conditions: the samples share that person,
    // so they are not independent, which every between-subject test assumes. Said, not refused:
    // ids can repeat by accident (a common first name), which only the researcher can tell.
    const shared =
      design !== "within" && repeated.length > 0
        ? `; but ${counted(repeated.length)} (${repeated.slice(0, 5).join(", ")}${repeated.length > 5 ? ", …" : ""}) took part in more than one condition, so a comparison of two conditions they were both in does not have independent samples: if the same ${agentUnits ? "participants" : "people"} took part in several conditions, declare "design": "within" to pair them`
        : "";
    return {
      design: design ?? "between",
      unit,
      agentUnits,
      source: given,
      reason: `declared (${given === "flag" ? "command line" : "colloquy.json compare"}): ${what}${shared}`,
    };
  }
  const hint =
    repeated.length >= 2
      ? `; ${counted(repeated.length)} took part in more than one condition: if they are the study's subjects, set "design": "within" under "compare" in colloquy.json to pair them`
      : "";
  return {
    design: "between",
    unit: "session",
    agentUnits,
    source: "default",
    reason: `default: each session is one observation, conditions are independent samples of sessions${hint}`,
  };
}

/** "between-subject, unit: session" / "within-subject, unit: participant (paired by id)". */
export function describeDesign(design: { design: Design; unit: Unit }): string {
  return design.design === "within" ? "within-subject, unit: participant (paired by participant id)" : `between-subject, unit: ${design.unit}`;
}

/**
 * The participant units of each session under a participant design: the ids of its people
 * (agents only when declared). Session-level measures are attributed to these people.
 */
export function personsBySession(sessions: readonly Session[], agentUnits: boolean): Map<string, string[]> {
  return new Map(sessions.map((s) => [s.id, s.participants.filter((p) => isPersonUnit(p.kind, agentUnits)).map((p) => p.id)]));
}

/**
 * The comparisons of conditions every analysis makes, each as [condition, reference]: every
 * other condition against the control when the study names one (and has it), else every pair,
 * the reference being the earlier of the two in alphabetical order. Every difference, mean
 * difference and effect size is the condition minus its reference.
 */
export function comparisonPairs(conditions: readonly string[], control?: string | null): [string, string][] {
  if (control !== undefined && control !== null && conditions.includes(control)) {
    return conditions.filter((c) => c !== control).map((c) => [c, control]);
  }
  const sorted = [...conditions].sort();
  return sorted.flatMap((reference, i) => sorted.slice(i + 1).map((condition): [string, string] => [condition, reference]));
}

/** How every comparison of conditions tests: the design, the one test, the adjustment, and the Monte Carlo settings. */
export interface InferenceSettings {
  design: StudyDesign;
  /** The decision table's alternative, when the study names one (else the design's default). */
  test?: TestId;
  adjust: Adjustment;
  resamples: number;
  seed: number;
}

/** The default inference: sessions as independent units, the permutation test, Holm, 10,000 resamples, seed 1. */
export const DEFAULT_INFERENCE: InferenceSettings = {
  design: { design: "between", unit: "session", agentUnits: false, source: "default", reason: "default: each session is one observation" },
  adjust: "holm",
  resamples: DEFAULT_RESAMPLES,
  seed: 1,
};
