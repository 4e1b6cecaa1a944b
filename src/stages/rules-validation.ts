import type { Codebook } from "../coding/codebook/schema.js";
import { KAPPA_FLOOR, type CoderValidation } from "../coding/learned/floor.js";
import { agreementOf } from "../coding/learned/validate.js";
import { codeTurnWithRules, rulesProblem } from "../coding/rules/index.js";
import type { Session } from "../transcript/schema.js";
import type { CodeRecord } from "../coding/records.js";
import type { StudyContext } from "./context.js";

/**
 * The rules coder's agreement with the study's own human codes of a codebook, stored with every
 * rules code so the dashboard and the report can mark codes from a coder never checked on this
 * study (or checked and found under the floor). The rules are run on the human-coded turns only,
 * a session at a time: `load` gives a session's turns (read anew, so the study's are not all held).
 */
export async function rulesValidation(
  context: StudyContext,
  codebook: Codebook,
  sessions: readonly Session[],
  load: (session: Session) => Session | Promise<Session>,
): Promise<CoderValidation> {
  if (rulesProblem(codebook)) return { status: "unvalidated", reason: "no rule set codes this codebook" };
  const humans = ((await context.coders())[codebook.id] ?? []).filter((c) => c.startsWith("human:"));
  let humanCodes: CodeRecord[] = [];
  // concat, not push(...): a spread of 200,000 records overflows the stack.
  for (const coder of humans) humanCodes = humanCodes.concat(await context.codes(codebook.id, coder));
  // Each human code's place in humanCodes, by session: a session is read once, in the study's order.
  const placesBySession = new Map<string, number[]>();
  humanCodes.forEach((record, i) => {
    const places = placesBySession.get(record.session);
    if (places) places.push(i);
    else placesBySession.set(record.session, [i]);
  });
  const rulesCodes: ({ codes?: string[]; scores?: Record<string, number> } | undefined)[] = [];
  for (const head of sessions) {
    const places = placesBySession.get(head.id);
    if (!places) continue;
    const session = await load(head);
    const position = new Map(session.turns.map((t, i) => [t.id, i]));
    for (const i of places) {
      const index = position.get(humanCodes[i].turn);
      if (index === undefined) continue;
      const rules = codeTurnWithRules(codebook, session, index);
      rulesCodes[i] = { codes: rules.codes, scores: rules.scores };
    }
  }
  // In the human codes' order, as before this read by session: the order the agreement sees.
  const pairs = humanCodes.flatMap((human, i) => {
    const rules = rulesCodes[i];
    return rules ? [{ human, rules, session: human.session }] : [];
  });
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
