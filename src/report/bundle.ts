import { provenance } from "../util/provenance.js";
import type { StudyData } from "./load.js";
import { REPORT_SCHEMA_VERSION, type ReportBundle, type SessionChunk } from "./types.js";
import { codebookInfo, collectConditions, collectSpeakers } from "./shape/common.js";
import { buildChunk, buildOverview, summariseSession } from "./shape/overview.js";
import { buildDistribution, buildSequenceSessions, buildSequenceSet } from "./shape/distributions.js";
import { buildFollows, buildParticipation, buildSpeakerParticipation } from "./shape/participation.js";
import { buildStyleSet } from "./shape/styles.js";
import { buildBalesSet, isBalesLike } from "./shape/bales.js";
import { attachCompareTests, buildCompareSet } from "./shape/compare.js";
import { readAgreement, readConcepts, readTopics } from "./shape/analysis.js";
import { sessionMetrics } from "../analysis/stats/metrics.js";

/** The commands that fill each view, named in its empty state. */
function hints(name: string) {
  const s = /^[\w./-]+$/.test(name) ? name : JSON.stringify(name);
  return {
    codes: `No codes yet. Run \`colloquy code ${s} --codebook bales-ipa --coder rules\` (or \`colloquy study ${s}\`).`,
    scales: `No scale codes yet. Run \`colloquy code ${s} --codebook pragmatic-style --coder rules\`.`,
    bales: `No Bales codes yet. Run \`colloquy code ${s} --codebook bales-ipa --coder rules\`.`,
    agreement: `No agreement report yet. Run \`colloquy agree ${s} --codebook bales-ipa --coders rules,human:<name>\` (needs codes from two coders).`,
    topics: `No topics yet. Run \`colloquy topics ${s}\`.`,
    concepts: `No concepts yet. Run \`colloquy concepts ${s}\`.`,
    sessions: `No sessions yet. Import transcripts with \`colloquy import ${s} <files>\` or run \`colloquy run\`.`,
  };
}

/**
 * Shape the whole study into the dashboard's data: the bundle every view reads, plus one chunk
 * per session (turn texts and code badges) loaded on demand.
 */
export function assembleReport(data: StudyData): { bundle: ReportBundle; chunks: SessionChunk[] } {
  const h = hints(data.name);
  const speakers = collectSpeakers(data.sessions);
  const control = data.config.compare.control;
  const conditions = collectConditions(data.sessions, control);
  const codebookIds = [...new Set(data.codeSets.map((s) => s.codebook))].sort();
  const codebooks = codebookIds.map((id) => codebookInfo(id, data.codebooks.get(id) ?? null, data.codeSets));
  const info = new Map(codebooks.map((c) => [c.id, c]));
  const labels = new Map(codebooks.map((c) => [c.id, new Map(c.categories.map((k) => [k.id, k.label]))]));
  const nominalSets = data.codeSets.filter((s) => info.get(s.codebook)!.kind === "nominal");
  const scaleSets = data.codeSets.filter((s) => info.get(s.codebook)!.kind === "scales");
  const sequenceSessions = buildSequenceSessions(data.sessions, speakers);
  const warnings = [...data.warnings];
  const compare = [];
  const empty: Record<string, string> = {};
  let compareEmpty: string | undefined;
  for (const set of nominalSets) {
    const result = buildCompareSet(data.sessions, set, info.get(set.codebook)!, data.config.compare, conditions);
    if ("empty" in result) compareEmpty ??= result.empty;
    else compare.push(attachCompareTests(result, data.analysis.compare.get(set.codebook), info.get(set.codebook)!));
  }
  const agreement = readAgreement(data.analysis.agreement, warnings);
  const topics = readTopics(data.analysis.topics, warnings);
  const concepts = readConcepts(data.analysis.concepts, warnings);
  const bales = nominalSets
    .filter((s) => isBalesLike(info.get(s.codebook)!))
    .map((s) => {
      const definition = data.codebooks.get(s.codebook);
      return buildBalesSet(data.sessions, s, info.get(s.codebook)!, definition?.kind === "nominal" ? definition : null);
    });
  // Participation as `colloquy stats` measures it, from the current sessions (stats.json may be older).
  const metrics = data.sessions.map(sessionMetrics);
  const members = speakers.filter((s) => s.kind !== "system").map((s) => s.key);
  if (data.sessions.length === 0) for (const view of ["who", "sequences", "timeline", "participation", "compare", "style", "bales"]) empty[view] = h.sessions;
  if (nominalSets.length === 0) for (const view of ["who", "sequences", "compare"]) empty[view] ??= h.codes;
  // Most basic missing piece first: sessions, then codes, then a second condition, then the control.
  if (conditions.length < 2) empty.compare ??= `Only one condition (${conditions[0] ?? "none"}): comparisons need sessions from two or more conditions (session metadata "condition").`;
  if (compareEmpty) empty.compare ??= compareEmpty;
  if (scaleSets.length === 0) empty.style ??= h.scales;
  if (bales.length === 0) empty.bales ??= h.bales;
  if (agreement.length === 0) empty.agreement = h.agreement;
  if (!topics && !concepts) empty.topics = `${h.topics} ${h.concepts}`;
  const bundle: ReportBundle = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    provenance: provenance({ study: data.name, sessions: data.sessions.length }),
    study: { name: data.name, title: data.config.title, description: data.config.description, control },
    overview: buildOverview(data),
    speakers,
    conditions,
    codebooks,
    sessions: data.sessions.map(summariseSession),
    distributions: nominalSets.map((s) => buildDistribution(data.sessions, s)),
    sequenceSessions,
    sequences: nominalSets.map((s) => buildSequenceSet(data.sessions, sequenceSessions, s, info.get(s.codebook)!)),
    participation: {
      sessions: data.sessions.map((s, i) => buildParticipation(s, metrics[i])),
      follows: buildFollows(metrics, members),
      speakers: buildSpeakerParticipation(metrics, members),
    },
    styles: scaleSets.map((s) => buildStyleSet(data.sessions, s, info.get(s.codebook)!)),
    bales,
    compare,
    agreement,
    topics,
    concepts,
    empty,
    warnings,
  };
  const chunks = data.sessions.map((s) => buildChunk(s, data, labels));
  return { bundle, chunks };
}
