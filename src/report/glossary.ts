/**
 * Plain words for the names a reader meets: the analysis files' field and measure names
 * (camelCase, for programs) and coder ids, mapped once here and used wherever text is written
 * for people (the paper report; the dashboard and the exports' data dictionaries may use the
 * same labels). The files keep the names; only what a reader sees changes.
 */
const LABELS: Record<string, string> = {
  branchingRatio: "branching ratio (sub-topics per main topic)",
  mainTopics: "main topics",
  subtopics: "sub-topics",
  conceptRate: "concepts per minute",
  sessionConceptRate: "concepts per minute (session)",
  uniqueConcepts: "distinct concepts",
  sessionUniqueConcepts: "distinct concepts (session)",
  totalConcepts: "concepts",
  conceptsPerUtterance: "concepts per turn",
  wordsPerUtterance: "words per turn",
  excludedTurns: "turns left out (system or reasoning)",
  countedTurns: "turns counted",
  pairedTTest: "paired t-test",
  welchTTest: "Welch's t-test",
  byCondition: "by condition",
  latency_s: "latency (seconds)",
  speaker_id: "speaker id",
  created_at: "created at",
};

/** "branchingRatio" -> "branching ratio (sub-topics per main topic)"; an unlisted camelCase name is split into words. */
export function plainLabel(name: string): string {
  return LABELS[name] ?? name.replace(/([a-z0-9])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);
}

/**
 * A table column as a reader names it, for the exports' data dictionaries: "share_of_turns" ->
 * "share of turns", "score_formality" -> "formality rating", "wordsPerUtterance" -> "words per turn".
 */
export function columnLabel(name: string): string {
  if (LABELS[name]) return LABELS[name];
  if (name.startsWith("score_")) return `${plainLabel(name.slice("score_".length))} rating`;
  return plainLabel(name).replace(/_/g, " ");
}

/** Free text from an analysis file (a definition) with every internal name in it put in plain words. */
export function inPlainWords(text: string): string {
  return text.replace(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g, (name) => plainLabel(name));
}

/** A coder as a reader names it: "the offline rules", "the LLM coder", "alice" (for human:alice). */
export function coderLabel(id: string): string {
  if (id.startsWith("human:")) return id.slice("human:".length);
  if (id === "rules") return "the offline rules";
  if (id === "learned") return "the learned coder";
  if (id === "llm" || id.startsWith("llm:")) return `the LLM coder${id.length > 3 ? ` (${id.slice(4)})` : ""}`;
  return id;
}

/** "bales-ipa codes by the offline rules" (never "rules's bales-ipa codes"). */
export function codesBy(coder: string, codebook: string): string {
  return `${codebook} codes by ${coderLabel(coder)}`;
}
