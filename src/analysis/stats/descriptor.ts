import { artifacts } from "../../study/artifacts.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { StatsReport } from "./report.js";

/**
 * Session metrics, participation, Bales profiles, phases, transitions and sequences:
 * `stats.json` and its tables, computed by {@link buildStats} (src/analysis/stats/report.ts). The dashboard draws
 * its views from the sessions with the same functions (metrics.ts, participation.ts,
 * bales.ts, sequences.ts); the study report copies stats.json.
 */
export const statsAnalysis: AnalysisDescriptor<StatsReport> = {
  id: "stats",
  title: "session metrics and Bales analyses",
  stage: "stats",
  result: artifacts.stats,
  artifacts: [artifacts.stats, artifacts.statsSessions, artifacts.statsParticipants],
  views: ["Participation", "Bales profile", "Interaction sequences"],
};
