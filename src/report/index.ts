/**
 * The dashboard: shapes a study into the site's data bundle (pure, unit-tested functions), writes
 * the static site, and serves it on 127.0.0.1.
 */
// Only the top-level bundle types: the per-view types have generic names that would clash in src/index.ts.
export { REPORT_SCHEMA_VERSION, type ReportBundle, type SessionChunk } from "./types.js";
export { loadStudyData, type StudyData as ReportStudyData, type CodeSet as ReportCodeSet } from "./load.js";
export { assembleReport } from "./bundle.js";
export { buildSite, siteIsStale, type BuildOptions, type BuildResult } from "./build.js";
export { writeSite, SITE_CSP, type SiteResult } from "./site.js";
export { startServer, type RunningServer, type ServeOptions } from "./server.js";
