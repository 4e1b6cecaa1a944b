import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { loadStudyCodebook, parseCodebook } from "../coding/codebook/load.js";
import type { Codebook } from "../coding/codebook/schema.js";
import type { CodeRecord, CodeSegment } from "../coding/records.js";
import { readCodeHistory, replaceCodes } from "../coding/store.js";
import { categoryLabelIndex, matchCodeLabel } from "../ingest/code-labels.js";
import { SessionBuilder } from "../ingest/builder.js";
import { treeCodebooks, type CodeTarget, type QdaCode } from "../qda/codes.js";
import { coderOfUser, isAutomaticCoder } from "../qda/coders.js";
import { TurnPlacer } from "../qda/placement.js";
import { readPositionUnit, selectionsInCodePoints, type PositionReading } from "../qda/positions.js";
import { readProject, type QdaTextSource } from "../qda/project-read.js";
import { segmentText, type TextTurn } from "../qda/text.js";
import { artifacts } from "../study/artifacts.js";
import { listSessionIds, loadSessions, registerCodebooks, saveSession } from "../study/study.js";
import { sessionFingerprints } from "../transcript/fingerprint.js";
import { slugify, uniqueId } from "../transcript/ids.js";
import type { Session } from "../transcript/schema.js";
import { validateSession } from "../transcript/validate.js";
import { CliError, errorMessage } from "../util/errors.js";
import { writeJsonAtomic } from "../util/fs.js";
import { provenance } from "../util/provenance.js";
import type { StageEffects, StudyContext } from "./context.js";
import { listHumanCoders } from "./human-coders.js";

/**
 * Importing a REFI-QDA project (.qdpx) made by NVivo, ATLAS.ti, MAXQDA, QualCoder or Colloquy:
 * text sources become sessions, its codes a codebook of the study, its codings code records of
 * their users. A coding is stored only on the one turn its range falls on; any other is reported
 * with its source and range, never moved onto a turn.
 */

export interface QdpxImportOptions {
  file: string;
  /**
   * Codebook for the project's own codes (those not exported by Colloquy): an existing one (a
   * shipped id, the study's own, a file) maps them by label; a new id names the codebook made of them.
   */
  codebook?: string;
}

/** A coding that was not stored, and why. */
export interface CodingProblem {
  source: string;
  start: number;
  end: number;
  code: string;
  reason: string;
}

export interface QdpxImportSummary {
  file: string;
  sessions: { id: string; source: string; turns: number; status: "created" | "existing" }[];
  codebooks: { id: string; status: "written" | "existing" }[];
  /** Codebooks newly listed in colloquy.json (so an export writes them again). */
  registered: string[];
  coders: string[];
  /** The coders newly listed under humanCoders in colloquy.json (human-coders.ts). */
  listed: string[];
  codes: number;
  /** The unit the project's selection positions were read in (stored as code points), and why. */
  positions: PositionReading;
  /**
   * Codings on text selections: read; stored (each kept with its range as a segment of its turn);
   * segments written; repeats of another coding by the same user, code and range (stored once);
   * codings over several turns (one segment per turn). Read - stored = problems + automaticSkipped.
   */
  codings: { read: number; stored: number; segments: number; duplicates: number; split: number };
  /** Codings by Colloquy's own (automatic) coders on sessions the study already has: it has them. */
  automaticSkipped: number;
  problems: CodingProblem[];
  warnings: string[];
}

const VIA = "colloquy import qdpx";
/** Case variables Colloquy writes for itself (not session metadata). */
const OWN_VARIABLES = new Set(["session", "speakers", "ai_speakers"]);
/** The participant of text that names no speaker. */
const UNATTRIBUTED = "(unattributed)";

function jsonList(value: string | number | boolean | undefined): string[] | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) && parsed.every((p) => typeof p === "string") ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The session a text source makes, and where each of its turns sits in the source. */
function sourceSession(source: QdaTextSource, file: string, id: string, warnings: string[]): { session: Session; turns: TextTurn[] } {
  const speakers = jsonList(source.variables.get("speakers"));
  const { turns, bySpeaker, byLine, unattributed, labelLike } = segmentText(source.text, speakers ? new Set(speakers) : undefined);
  if (unattributed > 0)
    warnings.push(`source "${source.name}": ${unattributed} paragraph(s) before the first "Name:" speaker line are kept as turns of ${UNATTRIBUTED}`);
  if (!bySpeaker && turns.length > 0)
    warnings.push(
      `source "${source.name}" is not a transcript: ${labelLike > 0 ? `${labelLike} line(s) look like "Name:" speaker lines, too few to read the source as speaker turns` : 'no line starts with a "Name:" speaker label'}; kept as a document, one turn per paragraph (${turns.length}, a paragraph being ${byLine ? "a line" : "a block between blank lines"}), speaker ${UNATTRIBUTED}`,
    );
  // A source Colloquy exported (its "session" case variable) carries nothing the session lacked;
  // another tool's source keeps what the project says about it (sets, author, dates) in `qda`.
  const about = source.variables.has("session") ? {} : { qda: source.about };
  const metadata: Record<string, unknown> = { source: { file, format: "qdpx", name: source.name }, ...about };
  for (const [key, value] of source.variables) if (!OWN_VARIABLES.has(key)) metadata[key] = value;
  const builder = new SessionBuilder(id, metadata, jsonList(source.variables.get("ai_speakers")) ?? []);
  // Participants in the order the export listed them (a silent participant is kept too).
  for (const name of speakers ?? []) builder.participant(name);
  for (const turn of turns) builder.turn(builder.participant(turn.speaker || UNATTRIBUTED), { text: turn.text });
  const session = validateSession({ ...builder.build(source.name !== id ? source.name : undefined) }, `${file}: source "${source.name}"`);
  return { session, turns };
}

/** Same speakers saying the same words, turn by turn. */
function sameTranscript(a: Session, b: Session): boolean {
  const names = (s: Session) => new Map(s.participants.map((p) => [p.id, p.name]));
  const [na, nb] = [names(a), names(b)];
  return a.turns.length === b.turns.length && a.turns.every((t, i) => t.text === b.turns[i].text && na.get(t.speaker) === nb.get(b.turns[i].speaker));
}

/** Codebooks for the project's codes: Colloquy's come back by id; the project's own are mapped or made. */
async function resolveCodebooks(
  study: string,
  codes: QdaCode[],
  project: { name: string; origin?: string; sets: Parameters<typeof treeCodebooks>[1] },
  options: QdpxImportOptions,
  warnings: string[],
) {
  const rebuilt = treeCodebooks(codes, project.sets, {
    id: options.codebook ?? slugify(project.name, "qda-codes"),
    title: project.name,
    origin: project.origin,
  });
  warnings.push(...rebuilt.warnings);
  const targets = new Map<string, CodeTarget>(rebuilt.targets);
  const codebooks: { book: Codebook; status: "written" | "existing" }[] = [];
  for (const book of rebuilt.codebooks) {
    const existing = await loadStudyCodebook(study, book.id).catch(() => undefined);
    if (existing && existing.kind === "nominal" && book.kind === "nominal" && book.id === rebuilt.foreign && options.codebook !== undefined) {
      // The project's own codes under a codebook the study has: matched by label, never invented.
      const index = categoryLabelIndex(existing);
      for (const [guid, target] of rebuilt.targets) {
        if (target.codebook !== book.id || !("category" in target)) continue;
        const label = book.categories.find((c) => c.id === target.category)!.label;
        const { ids } = matchCodeLabel(index, label);
        if (ids.length === 1) targets.set(guid, { codebook: existing.id, category: ids[0] });
        else {
          targets.delete(guid);
          warnings.push(`code "${label}" matches no category of codebook ${existing.id} (by id, label or alias); its codings are not stored`);
        }
      }
      codebooks.push({ book: existing, status: "existing" });
      continue;
    }
    if (existing && existing.kind === book.kind && existing.version === book.version) {
      codebooks.push({ book: existing, status: "existing" });
      continue;
    }
    let valid: Codebook;
    try {
      valid = parseCodebook(JSON.stringify(book), `${options.file}: codebook ${book.id}`);
    } catch (error) {
      warnings.push(`${errorMessage(error)}; its codings are not stored`);
      for (const [guid, target] of rebuilt.targets) if (target.codebook === book.id) targets.delete(guid);
      continue;
    }
    await writeJsonAtomic(artifacts.codebook.path(study, valid.id), valid);
    codebooks.push({ book: valid, status: "written" });
  }
  return { codebooks, targets };
}

export async function runQdpxImport(context: StudyContext, options: QdpxImportOptions, effects: StageEffects): Promise<QdpxImportSummary> {
  const study = context.dir;
  let bytes: Uint8Array;
  try {
    bytes = await readFile(options.file);
  } catch (error) {
    throw new CliError(`${options.file}: cannot read it (${errorMessage(error)})`);
  }
  let project;
  try {
    project = readProject(bytes, options.file);
  } catch (error) {
    throw new CliError(errorMessage(error));
  }
  const warnings = [...project.warnings, ...project.skipped.map((s) => `${options.file}: not imported: ${s}`)];
  const { codebooks, targets } = await resolveCodebooks(study, project.codes, project, options, warnings);

  // Sessions: a source the study already has (same id, same words) is reused, so codes made in
  // another tool land on the turns Colloquy's coders coded.
  const taken = new Set(await listSessionIds(study));
  const existing = new Map((await loadSessions(study)).map((s) => [s.id, s]));
  const summary: QdpxImportSummary = {
    file: options.file,
    sessions: [],
    codebooks: codebooks.map((c) => ({ id: c.book.id, status: c.status })),
    registered: await registerCodebooks(
      study,
      codebooks.filter((c) => c.status === "written").map((c) => c.book.id),
    ),
    coders: [],
    listed: [],
    codes: 0,
    positions: readPositionUnit(project.origin, project.sources),
    codings: { read: 0, stored: 0, segments: 0, duplicates: 0, split: 0 },
    automaticSkipped: 0,
    problems: [],
    warnings,
  };
  const placed: { source: QdaTextSource; session: Session; turns: TextTurn[]; reused: boolean }[] = [];
  const claimed = new Set<string>();
  for (const source of project.sources) {
    const proposed = slugify(String(source.variables.get("session") ?? source.name));
    let built;
    try {
      built = sourceSession(source, options.file, proposed, warnings);
    } catch (error) {
      warnings.push(`${errorMessage(error)}; not imported`);
      continue;
    }
    const before = existing.get(proposed);
    if (before && !claimed.has(proposed) && sameTranscript(before, built.session)) {
      claimed.add(proposed);
      placed.push({ source, session: before, turns: built.turns, reused: true });
      summary.sessions.push({ id: before.id, source: source.name, turns: before.turns.length, status: "existing" });
      continue;
    }
    const id = uniqueId(proposed, taken);
    claimed.add(id);
    if (before) warnings.push(`source "${source.name}": the study's session ${proposed} has other words; imported as ${id}`);
    const session = id === proposed ? built.session : validateSession({ ...built.session, id }, options.file);
    await saveSession(study, session);
    placed.push({ source, session, turns: built.turns, reused: false });
    summary.sessions.push({ id, source: source.name, turns: session.turns.length, status: "created" });
  }
  context.changed("sessions");

  // Codings -> one record per codebook x coder x turn, holding every coding's range as a segment.
  const codeNames = new Map<string, string>();
  const nameCodes = (codes: readonly QdaCode[]) => codes.forEach((c) => (codeNames.set(c.guid, c.name), nameCodes(c.children)));
  nameCodes(project.codes);
  const books = new Map(codebooks.map((c) => [c.book.id, c.book]));
  const fresh = new Map<string, CodeRecord>();
  const whole = new Map<CodeRecord, boolean>();
  const source = resolve(options.file);
  const count = summary.codings;
  for (const { source: src, session, turns, reused } of placed) {
    if (src.wholeSourceCodings > 0)
      summary.problems.push({ source: src.name, start: 0, end: 0, code: "", reason: `${src.wholeSourceCodings} coding(s) of the whole source name no turn` });
    const fingerprints = sessionFingerprints(session);
    const placer = new TurnPlacer(src.text, turns);
    for (const selection of selectionsInCodePoints(src.text, src.selections, summary.positions.unit)) {
      const parts = selection.end > selection.start ? placer.place(selection.start, selection.end) : [];
      for (const coding of selection.codings) {
        count.read++;
        const name = codeNames.get(coding.code) ?? coding.code;
        const problem = (reason: string) => summary.problems.push({ source: src.name, start: selection.start, end: selection.end, code: name, reason });
        if (!(selection.end > selection.start)) {
          problem("an empty or reversed range");
          continue;
        }
        if (parts.length === 0) {
          problem("falls on no turn (outside the text, or on blank lines only)");
          continue;
        }
        const target = targets.get(coding.code);
        if (!target || !books.has(target.codebook)) {
          problem("its code is not a codable code of an imported codebook");
          continue;
        }
        const user = coding.user ? project.users.get(coding.user) : undefined;
        const coder = coderOfUser(user, (t) => slugify(t, "unknown"));
        if (reused && isAutomaticCoder(coder)) {
          summary.automaticSkipped++;
          continue;
        }
        count.stored++;
        if (parts.length > 1) count.split++;
        const book = books.get(target.codebook)!;
        for (const part of parts) {
          const turn = session.turns[part.turn];
          const key = `${target.codebook}\u0000${coder}\u0000${session.id}\u0000${turn.id}`;
          let record = fresh.get(key);
          if (!record) {
            const userName = user?.name?.trim();
            record = {
              session: session.id,
              turn: turn.id,
              fingerprint: fingerprints.get(turn.id),
              codebook: book.id,
              codebookVersion: book.version,
              coder,
              ...("category" in target ? { codes: [] } : { scores: {} }),
              segments: [],
              provenance: provenance({ via: VIA, source, positions: summary.positions.unit, ...(userName ? { user: userName } : {}) }),
              createdAt: coding.createdAt ?? new Date().toISOString(),
            };
            fresh.set(key, record);
            whole.set(record, true);
          }
          const segment: CodeSegment =
            "category" in target
              ? { start: part.start, end: part.end, codes: [target.category] }
              : { start: part.start, end: part.end, scores: { [target.scale]: target.value } };
          if (record.segments!.some((s) => JSON.stringify(s) === JSON.stringify(segment))) {
            count.duplicates++;
            continue;
          }
          record.segments!.push(segment);
          whole.set(record, whole.get(record)! && part.whole);
          if ("category" in target && !record.codes!.includes(target.category)) record.codes!.push(target.category);
          if ("scale" in target) record.scores![target.scale] = target.value;
        }
      }
    }
  }
  for (const record of fresh.values()) {
    count.segments += record.segments!.length;
    // Codings of whole turns only (a Colloquy export's): the record says it all without ranges.
    if (whole.get(record)) delete record.segments;
    const book = books.get(record.codebook)!;
    // Nominal codes in codebook order, so one turn's codes read the same however they were clicked.
    if (record.codes && book.kind === "nominal")
      record.codes.sort((a, b) => book.categories.findIndex((c) => c.id === a) - book.categories.findIndex((c) => c.id === b));
    if (record.codes && record.codes.length > 1 && book.kind === "nominal" && !book.multiple)
      warnings.push(
        `${record.coder} gave ${record.session}/${record.turn} ${record.codes.length} codes (${record.codes.join(", ")}) under ${book.id}, which takes one per turn; stored as given`,
      );
  }
  if (count.split > 0) warnings.push(`${count.split} coding(s) spanned several turns: each is stored as one segment per turn it covers`);
  if (count.duplicates > 0) warnings.push(`${count.duplicates} coding(s) repeat another of the same user, code and range: stored once`);

  // Store per codebook x coder: codes an earlier import of this file gave these sessions are replaced.
  const sessionIds = new Set(placed.map((p) => p.session.id));
  const groups = new Map<string, CodeRecord[]>();
  for (const record of fresh.values()) {
    const key = `${record.codebook}\u0000${record.coder}`;
    groups.set(key, [...(groups.get(key) ?? []), record]);
  }
  for (const [key, records] of groups) {
    const [codebook, coder] = key.split("\u0000");
    const kept = (await readCodeHistory(study, codebook, coder)).filter(
      (r) => !(r.provenance.via === VIA && r.provenance.source === source && sessionIds.has(r.session)),
    );
    await replaceCodes(study, codebook, coder, [...kept, ...records]);
    summary.codes += records.length;
  }
  context.changed("codes");
  summary.coders = [...new Set([...fresh.values()].map((r) => r.coder))].sort();
  summary.listed = await listHumanCoders(study, summary.coders, effects);
  effects.log(
    `import ${options.file}: ${summary.sessions.length} session(s), ${summary.codes} code record(s) holding ${count.stored} of ${count.read} coding(s), ${summary.problems.length} not stored; positions read as ${summary.positions.unit}`,
  );
  return summary;
}
