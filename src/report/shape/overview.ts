import type { Session } from "../../transcript/schema.js";
import type { StudyData } from "../load.js";
import type { Overview, SessionChunk, SessionSummary } from "../types.js";
import { countWords } from "../../analysis/shared/words.js";
import { timeSpan } from "../../analysis/shared/measures.js";
import { conditionOf, speakerKeys, turnSpeaker } from "./common.js";

/** File name of a session's chunk (session ids are file-name safe by schema). */
export function chunkFile(sessionId: string): string {
  return `sessions/${sessionId}.json`;
}

export function summariseSession(session: Session): SessionSummary {
  const keys = speakerKeys(session);
  let words = 0;
  for (const t of session.turns) words += countWords(t.text);
  return {
    id: session.id,
    title: session.title,
    condition: conditionOf(session),
    run: session.metadata.run,
    turns: session.turns.length,
    words,
    duration: timeSpan(session.turns).seconds,
    participants: session.participants.map((p) => ({ key: keys.get(p.id)!.key, kind: p.kind, role: p.role })),
    incomplete: session.metadata.incomplete === true,
    chunk: chunkFile(session.id),
  };
}

/** Collect model names from session metadata and code provenance (never keys: only `model` fields). */
function collectModels(data: StudyData): string[] {
  const models = new Set<string>();
  for (const s of data.sessions) {
    const m = s.metadata.model;
    if (typeof m === "string") models.add(m);
    for (const p of s.participants) if (typeof p.metadata?.model === "string") models.add(p.metadata.model);
  }
  for (const set of data.codeSets) {
    for (const r of set.records) {
      if (typeof r.provenance.model === "string") models.add(r.provenance.model);
    }
  }
  return [...models].sort();
}

export function buildOverview(data: StudyData): Overview {
  const conditions = new Map<string, { id: string; sessions: number; turns: number }>();
  const kinds = { human: new Set<string>(), ai: new Set<string>(), simulated: new Set<string>(), system: new Set<string>() };
  const turnTypes: Record<string, number> = {};
  let turns = 0;
  let words = 0;
  const dates: string[] = [];
  for (const s of data.sessions) {
    const c = conditionOf(s);
    const entry = conditions.get(c) ?? { id: c, sessions: 0, turns: 0 };
    entry.sessions++;
    entry.turns += s.turns.length;
    conditions.set(c, entry);
    const keys = speakerKeys(s);
    for (const p of s.participants) kinds[p.kind].add(keys.get(p.id)!.key);
    for (const t of s.turns) {
      turns++;
      words += countWords(t.text);
      turnTypes[t.type] = (turnTypes[t.type] ?? 0) + 1;
    }
    if (s.metadata.date) dates.push(s.metadata.date);
  }
  for (const set of data.codeSets) for (const r of set.records) dates.push(r.createdAt);
  dates.sort();
  const coders: Record<string, string[]> = {};
  for (const set of data.codeSets) (coders[set.codebook] ??= []).push(set.coder);
  const analysisFiles = data.analysis.files.map(({ file, provenance }) => ({ file, createdAt: provenance.createdAt, version: provenance.version }));
  return {
    sessions: data.sessions.length,
    conditions: [...conditions.values()],
    participants: { human: kinds.human.size, ai: kinds.ai.size, simulated: kinds.simulated.size, system: kinds.system.size },
    turns,
    words,
    turnTypes,
    coders,
    coded: data.codeSets.map((s) => ({ codebook: s.codebook, coder: s.coder, turns: s.byTurn.size })),
    models: collectModels(data),
    dates: { first: dates[0], last: dates[dates.length - 1] },
    analysisFiles,
  };
}

/**
 * One session's turns plus a badge per (codebook, coder) code on each turn. Text is copied
 * verbatim: the site renders it with textContent, never as HTML.
 */
export function buildChunk(session: Session, data: Pick<StudyData, "codeSets">, labels: Map<string, Map<string, string>>): SessionChunk {
  const keys = speakerKeys(session);
  const speakers: string[] = [];
  const index = new Map<string, number>();
  const badges: SessionChunk["badges"] = {};
  const turns = session.turns.map((t) => {
    const key = turnSpeaker(session, keys, t);
    if (!index.has(key)) {
      index.set(key, speakers.length);
      speakers.push(key);
    }
    return { id: t.id, s: index.get(key)!, text: t.text, type: t.type, start: t.start, end: t.end, timestamp: t.timestamp };
  });
  for (const set of data.codeSets) {
    const names = labels.get(set.codebook);
    for (const t of session.turns) {
      const r = set.byTurn.get(`${session.id}\u0000${t.id}`);
      if (!r) continue;
      const parts = [
        ...(r.codes ?? []).map((c) => names?.get(c) ?? c),
        ...Object.entries(r.scores ?? {}).map(([k, v]) => `${k} ${v}`),
      ];
      if (parts.length > 0) (badges[t.id] ??= []).push([set.codebook, set.coder, parts.join(", ")]);
    }
  }
  return { id: session.id, condition: conditionOf(session), speakers, turns, badges };
}
