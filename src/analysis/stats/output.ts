import type { StatsResult } from "./report.js";
import type { MemberMetrics, SessionMetrics } from "./metrics.js";
import type { Summary } from "../shared/table.js";
import { csvLine, csvText, textTable } from "../shared/table.js";

/** The columns of stats-sessions.csv, one row per session ({@link sessionRow}). */
const SESSION_COLUMNS = [
  "session",
  "condition",
  "run",
  "members",
  "turns",
  "words",
  "excluded_turns",
  "duration_seconds",
  "turns_per_minute",
  "words_per_minute",
  "mean_words_per_turn",
  "balance_entropy_turns",
  "balance_entropy_words",
  "balance_one_minus_gini_turns",
  "balance_one_minus_gini_words",
  "duration_note",
];

function sessionRow(s: SessionMetrics): unknown[] {
  return [
    s.session,
    s.condition,
    s.run,
    s.members,
    s.turns,
    s.words,
    s.excludedTurns,
    s.durationSeconds,
    s.turnsPerMinute,
    s.wordsPerMinute,
    s.meanWordsPerTurn,
    s.balance.entropyTurns,
    s.balance.entropyWords,
    s.balance.oneMinusGiniTurns,
    s.balance.oneMinusGiniWords,
    s.durationNote,
  ];
}

/** The columns of stats-participants.csv, one row per member of a session ({@link participantRow}). */
const PARTICIPANT_COLUMNS = [
  "session",
  "condition",
  "run",
  "participant",
  "name",
  "role",
  "kind",
  "turns",
  "words",
  "share_turns",
  "share_words",
  "mean_words_per_turn",
  "turns_per_minute",
  "words_per_minute",
];

function participantRow(p: MemberMetrics): unknown[] {
  return [
    p.session,
    p.condition,
    p.run,
    p.participant,
    p.name,
    p.role,
    p.kind,
    p.turns,
    p.words,
    p.shareTurns,
    p.shareWords,
    p.meanWordsPerTurn,
    p.turnsPerMinute,
    p.wordsPerMinute,
  ];
}

/** One session's lines of the two CSV tables (csvLine): its row, and a row per member. */
export interface SessionRows {
  session: string;
  participants: string[];
}

/** A session's {@link SessionRows}: rendered when it is measured, so that a session memo can keep them. */
export function sessionRows(s: SessionMetrics): SessionRows {
  return { session: csvLine(sessionRow(s)), participants: s.participants.map((p) => csvLine(participantRow(p))) };
}

/** The text of the two tables from every session's rows, in session order. */
export function statsTables(rows: readonly SessionRows[]): { sessions: string; participants: string } {
  return {
    sessions: csvText([csvLine(SESSION_COLUMNS), ...rows.map((r) => r.session)]),
    participants: csvText([csvLine(PARTICIPANT_COLUMNS), ...rows.flatMap((r) => r.participants)]),
  };
}

/** CSV tables of stats: one row per session, one row per member of a session. */
export function statsCsvs(report: StatsResult): { sessions: string; participants: string } {
  return statsTables(report.sessions.map(sessionRows));
}

const ms = (s: Summary, digits = 1): string => (s.mean === null ? "-" : `${s.mean.toFixed(digits)} ± ${s.sd === null ? "-" : s.sd.toFixed(digits)}`);
const share = (v: number | null | undefined): string => (v === null || v === undefined ? "-" : `${(v * 100).toFixed(1)}%`);

/** The readable terminal summary of stats. */
export function statsSummary(report: StatsResult): string {
  const out: string[] = [];
  out.push(`Sessions per condition (mean ± SD over sessions)`);
  out.push(
    textTable(
      ["condition", "n", "turns", "words", "minutes", "turns/min", "words/min", "words/turn", "balance H", "1-Gini"],
      report.conditions.map((c) => [
        c.condition,
        String(c.sessions),
        ms(c.turns),
        ms(c.words),
        c.durationSeconds.mean === null
          ? "-"
          : `${(c.durationSeconds.mean / 60).toFixed(1)} ± ${c.durationSeconds.sd === null ? "-" : (c.durationSeconds.sd / 60).toFixed(1)}`,
        ms(c.turnsPerMinute, 2),
        ms(c.wordsPerMinute),
        ms(c.meanWordsPerTurn),
        ms(c.balanceEntropyTurns, 2),
        ms(c.balanceOneMinusGiniTurns, 2),
      ]),
    ),
  );
  out.push("");
  out.push("Members per condition and role (mean ± SD over members)");
  out.push(
    textTable(
      ["condition / role", "n", "turns", "words", "share of turns", "share of words", "words/turn"],
      report.roles.map((r) => [
        `${r.condition} / ${r.role}`,
        String(r.members),
        ms(r.turns),
        ms(r.words),
        ms(r.shareTurns, 3),
        ms(r.shareWords, 3),
        ms(r.meanWordsPerTurn),
      ]),
    ),
  );
  const codes = report.codes;
  if (codes) {
    const profiles = codes.profiles;
    out.push("");
    out.push(`Codes: ${codes.codebook.id} ${codes.codebook.version} by ${codes.coder} (${codes.codedTurns} coded turns, ${codes.uncodedTurns} uncoded)`);
    const groups = Object.keys(profiles.overall.groups);
    if (groups.length > 0) {
      out.push(
        textTable(
          ["condition", "acts", ...groups],
          profiles.conditions.map((c) => [c.condition, String(c.profile.acts), ...groups.map((g) => fmtPct(c.profile.groups[g].percent))]),
        ),
      );
    }
    const ratios = Object.keys(profiles.overall.ratios);
    if (ratios.length > 0) {
      out.push("");
      out.push("Bales ratios per condition (null = denominator 0)");
      out.push(
        textTable(
          ["condition", ...ratios],
          profiles.conditions.map((c) => [c.condition, ...ratios.map((r) => fmtNum(c.profile.ratios[r].value))]),
        ),
      );
    }
    if (codes.phases) {
      const shown = codes.phases.groups.slice(0, 3);
      out.push("");
      out.push(`Phase movement (share of acts per third: early / middle / late)`);
      out.push(
        textTable(
          ["condition", ...shown],
          [...codes.phases.conditions.map((c) => ({ name: c.condition, thirds: c.thirds })), { name: "all", thirds: codes.phases.overall }].map((c) => [
            c.name,
            ...shown.map((g) => c.thirds.map((t) => share(t.shares[g])).join(" / ")),
          ]),
        ),
      );
    }
  }
  for (const note of report.notes) out.push(`note: ${note}`);
  return out.join("\n");
}

const fmtPct = (v: number | null): string => (v === null ? "-" : `${v.toFixed(1)}%`);
const fmtNum = (v: number | null): string => (v === null ? "null" : v.toFixed(2));
