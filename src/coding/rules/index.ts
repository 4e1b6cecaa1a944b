import type { Codebook } from "../codebook/schema.js";
import type { Session } from "../../transcript/schema.js";
import { BALES_CODES, BALES_RULES, codeBalesTurn } from "./bales.js";
import { STYLE_RULES, STYLE_SCALES, codeStyle } from "./style.js";
import { ownEntry } from "../../util/named-entries.js";

/**
 * The offline rule coder: a transparent, deterministic dialogue-act baseline for codebooks that
 * declare a rule set (`"rules": "bales-ipa"` or `"pragmatic-style"`, as the shipped ones do). No network, no randomness: the same turn in the
 * same context always gets the same code, and `rules` says which documented rules decided it
 * (see BALES_RULES and STYLE_RULES). It is a baseline; an LLM or human coder is the reference.
 */

/** Goes into every record's provenance; bump whenever a rule, a word list or a precedence changes. */
export const RULES_CODER_VERSION = "1.0.0";

/** What the rule coder says about one turn. `rules` are the ids of the rules that fired. */
export interface RulesResult {
  codes?: string[];
  scores?: Record<string, number>;
  rationale: string;
  rules: string[];
}

/** An offline rule set: the codes or scores it gives one turn, and what each of its rules means. */
interface RuleSet {
  kind: Codebook["kind"];
  code(session: Session, index: number): RulesResult;
  /** Rule id -> what it detects (for documentation and `codebook show`). */
  descriptions: Record<string, string>;
  /** The category ids or scale ids it produces (a codebook naming it must have them all). */
  produces: readonly string[];
}

const RULE_SETS: Record<string, RuleSet> = {
  "bales-ipa": {
    kind: "nominal",
    code(session, index) {
      const decision = codeBalesTurn(session, index);
      return { codes: [decision.code], rationale: decision.rationale, rules: decision.rules };
    },
    descriptions: BALES_RULES,
    produces: BALES_CODES,
  },
  "pragmatic-style": {
    kind: "scales",
    code(session, index) {
      const decision = codeStyle(session.turns[index]!.text);
      return { scores: { ...decision.scores }, rationale: decision.rationale, rules: decision.rules };
    },
    descriptions: STYLE_RULES,
    produces: STYLE_SCALES,
  },
};

/** Names of the rule sets a codebook may declare in its `rules` field. */
export const RULE_SET_NAMES = Object.keys(RULE_SETS);

/** Rule id -> description, per rule set. */
export const RULE_DESCRIPTIONS: Record<string, Record<string, string>> = Object.fromEntries(
  Object.entries(RULE_SETS).map(([name, set]) => [name, set.descriptions]),
);

/**
 * Why the rule coder cannot code this codebook (no `rules` field, an unknown rule set, or a
 * codebook that lacks what the rule set produces); undefined when it can.
 */
export function rulesProblem(codebook: Codebook): string | undefined {
  if (!codebook.rules)
    return `codebook "${codebook.id}" names no offline rule set (its "rules" field); use --coder llm, or add "rules": "${RULE_SET_NAMES[0]}" if it keeps that rule set's categories`;
  // Own keys only: "rules": "constructor" names no rule set.
  const set = ownEntry(RULE_SETS, codebook.rules);
  if (!set) return `codebook "${codebook.id}": "rules": "${codebook.rules}" is not a rule set (there are ${RULE_SET_NAMES.join(", ")})`;
  if (set.kind !== codebook.kind)
    return `codebook "${codebook.id}" is ${codebook.kind} but rule set "${codebook.rules}" gives ${set.kind === "nominal" ? "categories" : "scale ratings"}`;
  const has = new Set(codebook.kind === "nominal" ? codebook.categories.map((c) => c.id) : codebook.scales.map((s) => s.id));
  const missing = set.produces.filter((id) => !has.has(id));
  if (missing.length)
    return `codebook "${codebook.id}" lacks ${missing.join(", ")}, which rule set "${codebook.rules}" gives; rename its ${codebook.kind === "nominal" ? "categories" : "scales"} or drop "rules"`;
  return undefined;
}

/** True when the rule coder can code this codebook (see rulesProblem for why not). */
export function rulesSupport(codebook: Codebook): boolean {
  return rulesProblem(codebook) === undefined;
}

/**
 * Code turn `index` of `session` under `codebook` with the codebook's rule set. The turn before
 * it in the same session is used as context (e.g. "yes" after a question of fact answers it).
 * Throws for a codebook the rules cannot code (check rulesSupport first) or a bad index.
 */
export function codeTurnWithRules(codebook: Codebook, session: Session, index: number): RulesResult {
  if (!Number.isInteger(index) || index < 0 || index >= session.turns.length) {
    throw new RangeError(`turn index ${index} is outside session "${session.id}" (${session.turns.length} turns)`);
  }
  const problem = rulesProblem(codebook);
  if (problem) throw new Error(problem);
  return RULE_SETS[codebook.rules!].code(session, index);
}

export { codeBales, type BalesCode, type BalesDecision } from "./bales.js";
export { codeStyle, type StyleDecision } from "./style.js";
