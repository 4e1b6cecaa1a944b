import { disagreementsCsv, type AgreementReport } from "../analysis/agreement/agree.js";
import { compareCsvs } from "../analysis/compare/output.js";
import type { CompareReport } from "../analysis/compare/compare.js";
import { conceptsCsv, type ConceptsReport } from "../analysis/concepts/report.js";
import { statsCsvs } from "../analysis/stats/output.js";
import type { StatsReport } from "../analysis/stats/report.js";
import type { TopicsReport } from "../analysis/topics/report.js";
import { readArtifact, writeArtifact } from "../study/artifacts.js";
import { writeFileAtomic } from "../util/fs.js";
import { jsonWithLineArrays } from "../util/json-layout.js";
import { agreementFiles } from "../analysis/agreement/descriptor.js";
import { compareFiles } from "../analysis/compare/descriptor.js";
import { statsFiles } from "../analysis/stats/descriptor.js";
import { topicsFiles } from "../analysis/topics/descriptor.js";
import { conceptsFiles } from "../analysis/concepts/descriptor.js";

/**
 * Every analysis result written (and the topics result read back) through the artifact
 * registry: the analyses compute, the stages write. Each returns the paths it wrote.
 */

/** agreement-<codebook>.json and its disagreements table. */
export async function writeAgreement(study: string, report: AgreementReport): Promise<{ json: string; csv: string }> {
  const codebook = report.source.type === "study" ? report.source.codebook : "csv";
  return writeAgreementFiles(report, {
    json: agreementFiles.agreement.path(study, codebook),
    csv: agreementFiles.agreementDisagreements.path(study, codebook),
  });
}

/** An agreement report and its disagreements table at these paths (`colloquy agree --csv --out`), laid out as the registry lays out agreement files. */
export async function writeAgreementFiles(report: AgreementReport, files: { json: string; csv: string }): Promise<{ json: string; csv: string }> {
  await writeFileAtomic(files.json, jsonWithLineArrays(report, agreementFiles.agreement.lineArrays!));
  await writeFileAtomic(files.csv, disagreementsCsv(report));
  return files;
}

/** compare-<codebook>.json and its three CSV tables. */
export async function writeCompareReport(
  study: string,
  report: CompareReport,
): Promise<{ json: string; frequencies: string; differences: string; tests: string }> {
  const id = report.codebook.id;
  const csv = compareCsvs(report);
  return {
    json: await writeArtifact(compareFiles.compare, study, report, id),
    frequencies: await writeArtifact(compareFiles.compareFrequencies, study, csv.frequencies, id),
    differences: await writeArtifact(compareFiles.compareDifferences, study, csv.differences, id),
    tests: await writeArtifact(compareFiles.compareTests, study, csv.tests, id),
  };
}

/** The files stats writes: stats.json and its two CSV tables. */
export interface StatsFiles {
  json: string;
  sessions: string;
  participants: string;
}

/** stats.json and its two CSV tables. */
export async function writeStatsReport(study: string, report: StatsReport): Promise<StatsFiles> {
  const csv = statsCsvs(report);
  return {
    json: await writeArtifact(statsFiles.stats, study, report),
    sessions: await writeArtifact(statsFiles.statsSessions, study, csv.sessions),
    participants: await writeArtifact(statsFiles.statsParticipants, study, csv.participants),
  };
}

/** topics.json. */
export function writeTopicsReport(study: string, report: TopicsReport): Promise<string> {
  return writeArtifact(topicsFiles.topics, study, report);
}

/** The study's topics.json, validated; a CliError names a missing file or its first invalid field. */
export function readTopicsReport(study: string): Promise<TopicsReport> {
  return readArtifact(topicsFiles.topics, study);
}

/** concepts.json and its table. */
export async function writeConceptsReport(study: string, report: ConceptsReport): Promise<{ json: string; csv: string }> {
  return {
    json: await writeArtifact(conceptsFiles.concepts, study, report),
    csv: await writeArtifact(conceptsFiles.conceptsTable, study, conceptsCsv(report)),
  };
}
