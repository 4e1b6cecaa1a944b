import type { Codebook } from "../codebook/schema.js";
import type { Session } from "../../transcript/schema.js";
import { BALES_RULES, codeBalesTurn } from "./bales.js";
import { STYLE_RULES, codeStyle } from "./style.js";

/**
 * The offline rule coder: a transparent, deterministic dialogue-act baseline for the shipped
 * `bales-ipa` and `pragmatic-style` codebooks. No network, no randomness: the same turn in the
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

/** Codebook ids the rule coder has rules for. */
export const RULES_CODEBOOKS = ["bales-ipa", "pragmatic-style"] as const;

/** True when the rule coder has rules for this codebook (matched by id). */
export function rulesSupport(codebook: Codebook): boolean {
  return (RULES_CODEBOOKS as readonly string[]).includes(codebook.id);
}

/**
 * Code turn `index` of `session` under `codebook` with the rules. The turn before it in the
 * same session is used as context (e.g. "yes" after a question of fact answers it).
 * Throws for a codebook the rules do not support (check rulesSupport first) or a bad index.
 */
export function codeTurnWithRules(codebook: Codebook, session: Session, index: number): RulesResult {
  if (!Number.isInteger(index) || index < 0 || index >= session.turns.length) {
    throw new RangeError(`turn index ${index} is outside session "${session.id}" (${session.turns.length} turns)`);
  }
  if (codebook.id === "bales-ipa") {
    const decision = codeBalesTurn(session, index);
    return { codes: [decision.code], rationale: decision.rationale, rules: decision.rules };
  }
  if (codebook.id === "pragmatic-style") {
    const decision = codeStyle(session.turns[index]!.text);
    return { scores: { ...decision.scores }, rationale: decision.rationale, rules: decision.rules };
  }
  throw new Error(
    `the rule coder has no rules for codebook "${codebook.id}" (it supports ${RULES_CODEBOOKS.join(", ")}); use --coder llm`,
  );
}

/** Descriptions of every rule id, per codebook (for documentation and `codebook show`). */
export const RULE_DESCRIPTIONS: Record<(typeof RULES_CODEBOOKS)[number], Record<string, string>> = {
  "bales-ipa": BALES_RULES,
  "pragmatic-style": STYLE_RULES,
};

export { codeBales, type BalesCode, type BalesDecision } from "./bales.js";
export { codeStyle, type StyleDecision } from "./style.js";
