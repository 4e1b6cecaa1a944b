/**
 * Coders as REFI-QDA users. The user's `id` attribute holds the Colloquy coder id, so a project
 * that comes back keeps its coders; its `name` tells a reader in NVivo or MAXQDA which coders are
 * programs ("LLM coder gpt-4o (Colloquy, automatic)") and which are people ("alice").
 */

/** Coder ids Colloquy writes itself: rules, learned, llm, llm:<label>, human:<name>. */
const COLLOQUY_CODER = /^(?:rules|learned(?::[^\s]+)?|llm(?::[^\s]+)?|human:.+)$/;

/** True for coders that are programs, not people. */
export function isAutomaticCoder(coder: string): boolean {
  return !coder.startsWith("human:");
}

/** The name a QDA tool shows for a coder. */
export function coderUserName(coder: string): string {
  if (coder.startsWith("human:")) return coder.slice("human:".length);
  const [kind, label] = coder.split(/:(.*)/s);
  const what = kind === "llm" ? "LLM coder" : kind === "rules" ? "rules coder" : kind === "learned" ? "learned coder" : `${kind} coder`;
  return `${what}${label ? ` ${label}` : ""} (Colloquy, automatic)`;
}

/**
 * The Colloquy coder of a user in an imported project: its id when it is one Colloquy wrote,
 * otherwise a human coder named after the user (people code in QDA tools).
 */
export function coderOfUser(user: { id?: string; name?: string } | undefined, slug: (text: string) => string): string {
  if (user?.id && COLLOQUY_CODER.test(user.id)) return user.id;
  const name = user?.name?.trim() || user?.id?.trim() || "unknown";
  return `human:${slug(name)}`;
}
