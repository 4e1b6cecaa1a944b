import { cutRecords } from "../coding/records.js";
import type { Session } from "../transcript/schema.js";
import { CliError } from "../util/errors.js";
import type { StudyContext } from "./context.js";

/**
 * A part of a study: sessions by id, condition or run (`--sessions`, `--condition`, `--run`).
 * A session is selected when it matches every list given (ids AND conditions AND runs); within
 * one list any name matches. Agreement, comparisons and statistics computed on a selection name
 * it in their provenance, so a reader knows the numbers describe a subset.
 */
export interface SessionSelection {
  sessions?: readonly string[];
  conditions?: readonly string[];
  runs?: readonly string[];
}

/** The lists that were given (non-empty), or undefined when the whole study is meant. */
export function selectionOf(selection: SessionSelection | undefined): SessionSelection | undefined {
  if (!selection) return undefined;
  const out: { sessions?: string[]; conditions?: string[]; runs?: string[] } = {};
  if (selection.sessions?.length) out.sessions = [...selection.sessions];
  if (selection.conditions?.length) out.conditions = [...selection.conditions];
  if (selection.runs?.length) out.runs = [...selection.runs];
  return Object.keys(out).length > 0 ? out : undefined;
}

/** "sessions s1, s2; condition control" (for messages). */
export function describeSelection(selection: SessionSelection): string {
  const parts: string[] = [];
  if (selection.sessions?.length) parts.push(`session${selection.sessions.length > 1 ? "s" : ""} ${selection.sessions.join(", ")}`);
  if (selection.conditions?.length) parts.push(`condition${selection.conditions.length > 1 ? "s" : ""} ${selection.conditions.join(", ")}`);
  if (selection.runs?.length) parts.push(`run${selection.runs.length > 1 ? "s" : ""} ${selection.runs.join(", ")}`);
  return parts.join("; ");
}

const values = (sessions: readonly Session[], of: (s: Session) => string | undefined): string[] =>
  [...new Set(sessions.map(of).filter((v): v is string => v !== undefined))].sort();

/**
 * The sessions a selection names. A name that matches no session of the study, or a selection
 * that leaves nothing, is an error listing what there is (a typo must not shrink the data silently).
 */
export function selectSessions(all: readonly Session[], selection: SessionSelection | undefined): Session[] {
  const given = selectionOf(selection);
  if (!given) return [...all];
  const lists: { flag: string; names: readonly string[]; of: (s: Session) => string | undefined }[] = [];
  if (given.sessions) lists.push({ flag: "--sessions", names: given.sessions, of: (s) => s.id });
  if (given.conditions) lists.push({ flag: "--condition", names: given.conditions, of: (s) => s.metadata.condition });
  if (given.runs) lists.push({ flag: "--run", names: given.runs, of: (s) => s.metadata.run });
  for (const { flag, names, of } of lists) {
    const known = values(all, of);
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length > 0) {
      const listed = known.length > 20 ? `${known.slice(0, 20).join(", ")}, … (${known.length})` : known.join(", ");
      throw new CliError(
        `${flag} ${unknown.join(", ")}: no session of the study has ${unknown.length > 1 ? "these" : "this"} (${known.length ? `there are: ${listed}` : "no session has one"})`,
      );
    }
  }
  const chosen = all.filter((s) => lists.every(({ names, of }) => names.includes(of(s) ?? "\u0000")));
  if (chosen.length === 0) throw new CliError(`no session is in ${describeSelection(given)} at once; the selection is empty`);
  return chosen;
}

/**
 * The study context seen through a selection: `sessions()` are the selected ones and `codes()`
 * only their records; everything else is the study's. Nothing is copied: the arrays come from
 * the underlying context, filtered once per call.
 */
export function selectedContext(context: StudyContext, selection: SessionSelection | undefined): StudyContext {
  if (!selectionOf(selection)) return context;
  let chosen: Promise<{ sessions: Session[]; ids: Set<string> }> | undefined;
  const select = () =>
    (chosen ??= context.sessions().then((all) => {
      const sessions = selectSessions(all, selection);
      return { sessions, ids: new Set(sessions.map((s) => s.id)) };
    }));
  return {
    ...context,
    sessions: async () => (await select()).sessions,
    codes: async (codebook, coder) => {
      const { ids } = await select();
      return (await context.codes(codebook, coder)).filter((r) => ids.has(r.session));
    },
    codeValues: async (codebook, coder) => {
      const { ids } = await select();
      return (await context.codeValues(codebook, coder)).filter((r) => ids.has(r.session));
    },
    // Cut from the selection's records (the study's cut would summarise other sessions' records), on
    // each call: only the build asks for cuts, and it is given the whole study's context.
    codeCut: async (codebook, coder) => {
      const { ids } = await select();
      return cutRecords((await context.codes(codebook, coder, { keep: false })).filter((r) => ids.has(r.session)));
    },
    changed(what) {
      chosen = undefined;
      context.changed(what);
    },
  };
}
