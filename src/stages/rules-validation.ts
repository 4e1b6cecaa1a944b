import type { Codebook } from "../coding/codebook/schema.js";
import { KAPPA_FLOOR, type CoderValidation } from "../coding/learned/floor.js";
import { agreementOf } from "../coding/learned/validate.js";
import { codeTurnWithRules, rulesProblem } from "../coding/rules/index.js";
import type { Session } from "../transcript/schema.js";
import type { StudyContext } from "./context.js";

/**
 * The rules coder's agreement with the study's own human codes of a codebook, stored with every
 * rules code so the dashboard and the report can mark codes from a coder never checked on this
 * study (or checked and found under the floor). The rules are run on the human-coded turns only.
 */
export async function rulesValidation(context: StudyContext, codebook: Codebook, sessions: readonly Session[]): Promise<CoderValidation> {
  if (rulesProblem(codebook)) return { status: "unvalidated", reason: "no rule set codes this codebook" };
  const humans = ((await context.coders())[codebook.id] ?? []).filter((c) => c.startsWith("human:"));
  const byId = new Map(sessions.map((s) => [s.id, { session: s, position: new Map(s.turns.map((t, i) => [t.id, i])) }]));
  const pairs: {
    human: { codes?: string[]; scores?: Record<string, number> };
    rules: { codes?: string[]; scores?: Record<string, number> };
    session: string;
  }[] = [];
  for (const coder of humans) {
    for (const record of await context.codes(codebook.id, coder)) {
      const found = byId.get(record.session);
      const index = found?.position.get(record.turn);
      if (!found || index === undefined) continue;
      const rules = codeTurnWithRules(codebook, found.session, index);
      pairs.push({ human: record, rules: { codes: rules.codes, scores: rules.scores }, session: record.session });
    }
  }
  if (pairs.length === 0) return { status: "unvalidated", reason: "no human codes of this codebook in the study to check the rules against" };
  const measured = agreementOf(
    codebook,
    pairs.map((p) => p.human),
    pairs.map((p) => p.rules),
  );
  const kappa = Number.isFinite(measured.kappa) ? Math.round(measured.kappa * 1000) / 1000 : null;
  const common = {
    against: humans,
    kappa,
    n: measured.n,
    sessions: new Set(pairs.map((p) => p.session)).size,
    method: "rules against every human code of the study",
  };
  return kappa !== null && kappa >= KAPPA_FLOOR
    ? { status: "validated", ...common }
    : { status: "below-floor", reason: `kappa ${kappa ?? "(undefined)"} against the study's human codes is under ${KAPPA_FLOOR}`, ...common };
}
