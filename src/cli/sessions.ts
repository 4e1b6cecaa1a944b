import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import type { StaleCodeView } from "../coding/stale.js";
import type { Session } from "../transcript/schema.js";
import { provenance } from "../util/provenance.js";
import { io, printJson } from "./io.js";
import { shorten } from "../util/text.js";

/** One line of `colloquy sessions`. */
export interface SessionSummary {
  id: string;
  condition: string;
  run: string;
  humans: number;
  /** People played by a model (playbook participants): counted apart from humans. */
  simulated: number;
  ais: number;
  systems: number;
  turns: number;
  /** Seconds from the first to the last known time (end if known, else start); null without times. */
  durationSeconds: number | null;
  source?: string;
}

export function summariseSession(session: Session): SessionSummary {
  const count = (kind: string) => session.participants.filter((p) => p.kind === kind).length;
  const times = session.turns.flatMap((t) => [t.start, t.end]).filter((x): x is number => typeof x === "number");
  const summary: SessionSummary = {
    id: session.id,
    condition: session.metadata.condition ?? "",
    run: session.metadata.run ?? "",
    humans: count("human"),
    ais: count("ai"),
    simulated: count("simulated"),
    systems: count("system"),
    turns: session.turns.length,
    durationSeconds: times.length > 0 ? Math.max(...times) - Math.min(...times) : null,
  };
  if (session.metadata.source?.file) summary.source = session.metadata.source.file;
  return summary;
}

/** 75 -> "1:15", 3725 -> "1:02:05". */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return "-";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** Left-aligned text table (the CLI's only table, so kept here). */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** `colloquy sessions <study>`: what is in the study. */
export function registerSessions(program: Command): void {
  const sessions = program
    .command("sessions")
    .description("list a study's sessions: condition, run, participants (human/ai), turns, duration")
    .addArgument(studyArgument())
    .option("--stale", "list the codes that apply to no turn any more (their turn was edited or removed), with the words they were attached to")
    .option("--json", "print as JSON")
    .action(async (dir: string, flags: { json?: boolean; stale?: boolean }) => {
      const { loadSessions } = await import("../study/study.js");
      const { staleHint, studyStaleCodes } = await import("../coding/stale.js");
      const sessions = await loadSessions(dir);
      const stale = await studyStaleCodes(dir, sessions);
      if (flags.stale) return printStale(dir, stale, flags.json);
      const staleBySession = new Map<string, number>();
      for (const s of stale) staleBySession.set(s.session, (staleBySession.get(s.session) ?? 0) + 1);
      const summaries = sessions.map((s) => ({ ...summariseSession(s), staleCodes: staleBySession.get(s.id) ?? 0 }));
      if (flags.json) {
        printJson({ provenance: provenance({ command: "sessions" }), sessions: summaries, staleCodes: stale.length });
        return;
      }
      if (summaries.length === 0) {
        io().out(`No sessions yet. Import some with \`colloquy import <files…> --study ${dir}\`.`);
        return;
      }
      const rows = summaries.map((s) => [
        s.id,
        s.condition || "-",
        s.run || "-",
        `${s.humans} human / ${s.ais} ai${s.simulated ? ` / ${s.simulated} simulated` : ""}${s.systems ? ` / ${s.systems} system` : ""}`,
        String(s.turns),
        formatDuration(s.durationSeconds),
        ...(stale.length ? [String(s.staleCodes)] : []),
      ]);
      io().out(table(["session", "condition", "run", "participants", "turns", "duration", ...(stale.length ? ["stale codes"] : [])], rows));
      io().out(`${summaries.length} session(s), ${summaries.reduce((n, s) => n + s.turns, 0)} turns`);
      if (stale.length) io().out(staleHint(dir, stale.length));
    });
  sessions
    .command("rm")
    .description("remove sessions from a study with their codes (stale codes and coding failures too); the files as they were go to backups/removed-<time>/")
    .addArgument(studyArgument({ position: "first" }))
    .argument("<ids...>", "session ids (see `colloquy sessions <study>`)")
    .option("--json", "print as JSON")
    .action(async (dir: string, ids: string[], flags: { json?: boolean }) => {
      const { writing } = await import("./lock.js");
      const { removeSessions } = await import("../stages/remove-sessions.js");
      const removed = await writing(dir, "sessions rm", () => removeSessions(dir, ids));
      if (flags.json) {
        printJson({ provenance: provenance({ command: "sessions rm" }), ...removed });
        return;
      }
      io().out(
        `Removed ${removed.sessions.length} session(s) (${removed.sessions.join(", ")}) and ${removed.codes} code record(s). The files as they were are in ${removed.backup}; copy them back into the study to undo.`,
      );
    });
}

function printStale(dir: string, stale: readonly StaleCodeView[], json?: boolean): void {
  if (json) {
    printJson({ provenance: provenance({ command: "sessions --stale" }), staleCodes: stale });
    return;
  }
  if (stale.length === 0) {
    io().out(`No stale codes in ${dir}: every code applies to the turn it was given.`);
    return;
  }
  const value = (r: StaleCodeView["record"]) =>
    r.codes?.join("+") ??
    Object.entries(r.scores ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(" ");
  const words = (t?: string) => (t === undefined ? "(not known)" : JSON.stringify(shorten(t, 60)));
  const rows = stale.map((s) => [s.session, s.turn, s.codebook, s.coder, value(s.record), s.reason, s.where, words(s.text)]);
  io().out(table(["session", "turn", "codebook", "coder", "code", "why", "where", "was attached to"], rows));
  io().out(
    `${stale.length} stale code(s). They are never applied to another turn; re-code the turns (colloquy code) or, for human codes, code them again on the current text.`,
  );
}
