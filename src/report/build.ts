import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { studyPaths } from "../study/study.js";
import { silentReporter, type Reporter } from "../util/reporter.js";
import { assembleReport } from "./bundle.js";
import { loadStudyData } from "./load.js";
import type { StudyReader } from "../study/reader.js";
import { writeSite, type SiteResult } from "./site.js";

export interface BuildOptions {
  /** Output folder (default `<study>/site`). */
  out?: string;
  reporter?: Reporter;
  /** Where sessions and records come from (default: the study's files). */
  reader?: StudyReader;
}

export interface BuildResult extends SiteResult {
  warnings: string[];
  /** Milliseconds spent loading + shaping, and writing (incl. bundling the app). */
  timings: { shape: number; write: number };
}

/** Build the dashboard of a study into a static site folder. */
export async function buildSite(study: string, options: BuildOptions = {}): Promise<BuildResult> {
  const reporter = options.reporter ?? silentReporter;
  const out = resolve(options.out ?? studyPaths(study).site);
  const t0 = performance.now();
  const data = await loadStudyData(study, options.reader);
  const { bundle, chunks } = assembleReport(data);
  const t1 = performance.now();
  const result = await writeSite(out, bundle, chunks);
  const t2 = performance.now();
  for (const w of bundle.warnings) reporter.warn(w);
  return { ...result, warnings: bundle.warnings, timings: { shape: t1 - t0, write: t2 - t1 } };
}

async function newestMtime(path: string): Promise<number> {
  let info;
  try {
    info = await stat(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of await readdir(path)) newest = Math.max(newest, await newestMtime(join(path, name)));
  return newest;
}

/**
 * True when the site is missing or older than any of the study's data (config, sessions, codes,
 * analysis), i.e. `colloquy serve` must build before serving.
 */
export async function siteIsStale(study: string, siteDir?: string): Promise<boolean> {
  const paths = studyPaths(study);
  const index = join(resolve(siteDir ?? paths.site), "index.html");
  const built = await newestMtime(index);
  if (built === 0) return true;
  for (const source of [paths.config, paths.sessions, paths.codes, paths.analysis]) {
    if ((await newestMtime(source)) > built) return true;
  }
  return false;
}
