import { existsSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { readFile } from "node:fs/promises";
import { loadCodebook } from "../coding/codebook/load.js";
import { RULES_CODER_VERSION } from "../coding/rules/index.js";
import type { ModelCliOptions } from "../llm/config.js";
import type { CodebookPlan } from "../study/config.js";
import { loadStudyConfig } from "../study/study.js";
import { CliError } from "../util/errors.js";
import { toolVersion } from "../util/provenance.js";
import { codeVersion } from "../util/code-version.js";
import { hashValue, sha256 } from "../util/hash.js";
import type { BatchEntry } from "../llm/batch/ledger.js";
import { artifacts } from "../study/artifacts.js";
import { withTurns } from "../study/validated-sessions.js";
import { conceptsLexiconPath } from "../stages/concepts-lexicon.js";
import { analyses } from "../analysis/analyses.js";
import { fingerprint } from "./fingerprint.js";
import { changedSessions, codedAfter, codeInputs, perSessionCoding, sessionsOnly, type CodedFiles, type CodeInputs } from "./code-inputs.js";
import type { StudyContext } from "../stages/context.js";
import { isForced } from "./options.js";
import type { Stage, StageContext } from "./types.js";
import { agreementFiles } from "../analysis/agreement/descriptor.js";
import { compareFiles } from "../analysis/compare/descriptor.js";
import { statsFiles } from "../analysis/stats/descriptor.js";
import { topicsFiles } from "../analysis/topics/descriptor.js";
import { conceptsFiles } from "../analysis/concepts/descriptor.js";

/**
 * The stages of `colloquy study`, in order. Each calls the same library function as its
 * command (src/stages/), with the study's colloquy.json as its settings; its fingerprint covers
 * everything its outputs depend on, so unchanged stages are skipped.
 */

/** The files an analysis writes together with its result at `path` (its CSV tables too), from its descriptor. */
function writtenWith(c: StageContext, path: string): string[] {
  const file = basename(path);
  const analysis = analyses.find((d) => d.result.match(file));
  return analysis ? analysis.artifacts.map((a) => a.path(c.study.dir, ...analysis.result.match(file)!)) : [path];
}

/** A reason to run when any of the stage's output files (results and the tables beside them) is missing. */
function missingOutputs(c: StageContext, paths: string[]): string | undefined {
  const missing = paths
    .flatMap((p) => writtenWith(c, p))
    .filter((p) => !existsSync(p))
    .map((p) => relative(c.study.paths.root, p));
  return missing.length ? `missing ${missing.join(", ")}` : undefined;
}

const sessionsHashes = (c: StageContext) => c.hashes.folder(c.study.paths.sessions);
const codesHashes = async (c: StageContext) =>
  Object.fromEntries(Object.entries(await c.hashes.folder(c.study.paths.codes)).filter(([path]) => !path.endsWith(".failures.jsonl")));
/** The analysis results the dashboard reads; CSV tables, the study report or notes beside them do not change it. */
const analysisHashes = async (c: StageContext) =>
  Object.fromEntries(
    Object.entries(await c.hashes.folder(c.study.paths.analysis)).filter(([path]) =>
      analyses.some((d) => d.result.match(relative(c.study.paths.analysis, join(c.study.paths.root, path)))),
    ),
  );

/** Machine coders of each codebook plan, with the pipeline's --coder override applied. */
function plans(c: StageContext): CodebookPlan[] {
  // The whole plan (train, examples, shots…) so the code stage's fingerprint covers it.
  return c.study.config.codebooks.map((p) => ({ ...p, coders: c.options.coder ? [c.options.coder] : p.coders }));
}

/**
 * Batches of the study still waiting to be collected. Stage modules load only when their stage
 * runs (a run that skips every stage stays a quick start-up), and the batch module only when the
 * study has a ledger at all.
 */
async function pendingBatches(study: string): Promise<BatchEntry[]> {
  if (!existsSync(artifacts.batches.path(study))) return [];
  return (await import("../stages/batch.js")).openBatches(study);
}

const modelOverrides = (c: StageContext): ModelCliOptions => ({ model: c.options.model, baseURL: c.options.baseUrl });

/** What decides an LLM's replies (never the key): part of the fingerprint of LLM stages. */
function modelIdentity(c: StageContext): unknown {
  return {
    cli: modelOverrides(c),
    config: c.study.config.model,
    env: { model: process.env.COLLOQUY_MODEL ?? process.env.OPENAI_MODEL, baseUrl: process.env.OPENAI_BASE_URL },
  };
}

/** Inbox files to import: new or changed ones; all of them when the import settings changed. */
async function inboxWork(c: StageContext): Promise<{ files: Record<string, string>; todo: string[]; settings: string; reason: string }> {
  const { inbox, root } = c.study.paths;
  const hashes = await c.hashes.folder(inbox);
  // The state keys inbox files relative to inbox/ (the hasher keys them relative to the study).
  const files = Object.fromEntries(Object.entries(hashes).map(([path, hash]) => [relative(inbox, join(root, path)), hash]));
  const importConfig = c.study.config.import;
  // colloquy.json's speakers change who is an AI in every session: a change imports all files again.
  const { speakers } = c.study.config;
  const settings = fingerprint({
    pathPattern: importConfig.pathPattern,
    format: importConfig.format,
    tool: toolVersion,
    ...(Object.keys(speakers).length > 0 ? { speakers } : {}),
  });
  const forced = isForced(c.options, "import");
  const all = forced || (c.state.importSettings !== undefined && c.state.importSettings !== settings);
  const todo = Object.keys(files).filter((f) => all || c.state.imported[f] !== files[f]);
  const reason = all && !forced ? " (import settings changed: all files again)" : "";
  return { files, todo, settings, reason };
}

const importStage: Stage = {
  name: "import",
  description: "import new or changed transcripts from inbox/",
  writes: ["sessions", "codes"],
  async plan(c) {
    const { files, todo, settings, reason } = await inboxWork(c);
    return {
      fingerprint: fingerprint({ files, settings }),
      work: todo.length ? `import ${todo.length} new or changed file(s) from inbox/${reason}` : "no new files in inbox/",
      nothingToDo: todo.length === 0,
    };
  },
  async run(c) {
    const { files, todo, settings } = await inboxWork(c);
    if (todo.length === 0) return "no new files in inbox/";
    const { pathPattern, format } = c.study.config.import;
    const summary = await (
      await import("../stages/import.js")
    ).runImport(c.study, { paths: todo.map((f) => join(c.study.paths.inbox, f)), pathPattern, format }, c.reporter);
    for (const file of summary.files) {
      for (const w of file.warnings) c.reporter.warn(w);
      if (file.error && !file.skipped) c.reporter.warn(file.error);
    }
    // People whose codes came in with the transcripts are now listed in colloquy.json: the stages
    // after this one (agree first) read the config as it is now, not as the run found it.
    if (summary.listed.length > 0) {
      c.study = { ...c.study, config: await loadStudyConfig(c.study.dir) };
      const { listedLine } = await import("../stages/human-coders.js");
      for (const coder of summary.listed) c.reporter.log(listedLine(coder));
    }
    if (summary.failed > 0)
      throw new Error(`${summary.failed} of ${summary.inputs} inbox file(s) failed to import (see the warnings above); the others were imported`);
    for (const f of todo) c.state.imported[f] = files[f];
    c.state.importSettings = settings;
    const followed = summary.codesMoved ? `; ${summary.codesMoved} code(s) followed their edited turns` : "";
    const stale = summary.codesStale ? `; ${summary.codesStale} code(s) stale (see colloquy sessions --stale)` : "";
    return `imported ${summary.sessions} session(s), ${summary.turns} turns from ${summary.imported} file(s)${followed}${stale}`;
  },
};

/** "1 LLM batch (bales-ipa/llm, 9 requests, submitted 2026-…)" for messages. */
function waitingFor(pending: readonly BatchEntry[]): string {
  const requests = pending.reduce((n, b) => n + b.requests.length, 0);
  const labels = [...new Set(pending.map((b) => b.label))].join(", ");
  return `${pending.length} LLM batch${pending.length === 1 ? "" : "es"} (${labels}, ${requests} request(s), submitted ${pending[0].createdAt.slice(0, 16).replace("T", " ")} UTC)`;
}

/**
 * Everything that decides what the code stage does: sessions, stored codes, codebooks, coders,
 * model. `sessions`: the session hashes to use instead of hashing the files now.
 */
async function codeFingerprint(c: StageContext, sessions?: Record<string, string>) {
  const llm = plans(c).some((p) => p.coders.includes("llm"));
  // The whole definition, not just id@version: a researcher's own codebook may change in place.
  const codebooks = await Promise.all(plans(c).map((p) => loadCodebook(p.codebook, c.study.dir)));
  sessions ??= await sessionsHashes(c);
  const rest = {
    codes: await codesHashes(c),
    plans: plans(c),
    versions: codebooks.map((cb) => hashValue(cb)),
    rules: RULES_CODER_VERSION,
    model: llm ? modelIdentity(c) : null,
    tool: toolVersion,
  };
  const print = fingerprint({ sessions, ...rest });
  return { print, llm, codebooks, inputs: codeInputs(sessions, rest) };
}

/**
 * The part of the study the code stage must look at: only the new or changed sessions when
 * nothing else changed since it last left every turn coded (pipeline/code-inputs.ts), else all.
 */
function codingScope(c: StageContext, inputs: CodeInputs): { study: StudyContext; only?: string[] } {
  const only = isForced(c.options, "code") || !perSessionCoding(plans(c)) ? undefined : changedSessions(c.study, c.state, inputs);
  if (!only) return { study: c.study };
  let files = codedFiles.get(c);
  if (!files) codedFiles.set(c, (files = { coded: { ...c.state.codeInputs?.coded }, loaded: new Set() }));
  return { study: sessionsOnly(c.study, only, files), only };
}

/** Per pipeline run: what the code stage learned of which sessions each codes file holds (CodeInputs.coded). */
const codedFiles = new WeakMap<StageContext, CodedFiles>();

const scopeNote = (only: string[] | undefined) => (only ? ` (only the ${only.length} new or changed session(s))` : "");

/** Code runs that left every turn coded (no LLM batch still open): their inputs are remembered, with the sessions they coded (undefined: all). */
const completeCodeRuns = new WeakMap<StageContext, { only?: string[] }>();

/**
 * The session hashes a code run started from (those codingScope compared): what the run coded.
 * Hashing the files again after the run would record a session edited during it as coded,
 * though the run never loaded the edit, and no later run would code it.
 */
const codeRunSessions = new WeakMap<StageContext, Record<string, string>>();

const codeStage: Stage = {
  name: "code",
  needs: ["import"],
  description: "code every turn with each codebook and machine coder",
  writes: ["codes"],
  async fingerprintAfterRun(c) {
    // The codes are the stage's own outputs: hashed again; the sessions are what it started from.
    const { print, inputs } = await codeFingerprint(c, codeRunSessions.get(c));
    const complete = completeCodeRuns.get(c);
    // After a run over the whole study nothing is known of the codes files yet.
    const files = codedFiles.get(c);
    const coded = complete?.only && files ? codedAfter(files) : undefined;
    c.state.codeInputs = complete ? { ...inputs, ...(coded ? { coded } : {}) } : undefined;
    return print;
  },
  async plan(c) {
    const { print, llm, codebooks, inputs } = await codeFingerprint(c);
    if (c.state.stages.code?.fingerprint === print) return { fingerprint: print, work: "nothing new to code" };
    const scope = codingScope(c, inputs);
    if (scope.only?.length === 0) return { fingerprint: print, work: "nothing new to code (sessions removed only)" };
    // Built only to estimate prompts and look up the cache: nothing is sent while planning.
    const model = llm ? c.study.model(modelOverrides(c), c.reporter) : undefined;
    const sessions = await scope.study.sessions();
    const jobs: string[] = [];
    let toCode = 0;
    let requests = 0;
    let promptTokens = 0;
    for (const [i, plan] of plans(c).entries()) {
      for (const coder of plan.coders) {
        const dry = await (
          await import("../coding/job.js")
        ).dryRunCoding({
          study: c.study.dir,
          sessions,
          codebook: codebooks[i],
          coder,
          model: coder === "llm" ? model : undefined,
          reader: scope.study,
          // A session at a time: planning holds no session's turns (a first run over 1,000,000 turns held ~0.5 GB through the code stage).
          load: withTurns,
        });
        jobs.push(`${plan.codebook}/${coder} (${dry.toCode} new turn${dry.toCode === 1 ? "" : "s"})`);
        toCode += dry.toCode;
        requests += dry.requests - dry.cachedRequests;
        promptTokens += dry.promptTokens;
      }
    }
    const pending = llm ? await pendingBatches(c.study.dir) : [];
    return {
      fingerprint: print,
      work: `code ${jobs.join(", ") || "nothing"}${scopeNote(scope.only)}${pending.length ? `; the LLM coder waits for ${waitingFor(pending)}` : ""}`,
      nothingToDo: jobs.length === 0,
      // Turns without codes (e.g. a deleted codes file) are coded whatever the fingerprint says.
      mustRun: toCode > 0 ? `${toCode} turn(s) have no codes yet` : undefined,
      // Nothing goes online while a batch holds the LLM requests (they would be paid twice).
      llm: llm && pending.length === 0 ? { requests, promptTokens } : undefined,
    };
  },
  async run(c) {
    const { runCode, incompleteCoding } = await import("../stages/code.js");
    const { inputs } = await codeFingerprint(c);
    codeRunSessions.set(c, inputs.sessions);
    const pending = await pendingBatches(c.study.dir);
    if (pending.length > 0 && plans(c).some((p) => p.coders.includes("llm"))) {
      // A batch holds the LLM requests: code offline now, and let the later stages use the
      // codes stored so far; `colloquy batch collect` adds the LLM codes when the batch is done.
      c.reporter.warn(
        `${waitingFor(pending)} still open: the LLM coder waits for it and the next stages use the codes stored so far; collect with \`colloquy batch collect ${c.study.dir}\`, then run \`colloquy study\` again`,
      );
      const offline = plans(c).filter((p) => p.coders.includes("rules"));
      const parts: string[] = [];
      for (const plan of offline) {
        const summary = await runCode(c.study, { codebook: plan.codebook, coder: "rules" }, c.reporter);
        const problem = incompleteCoding(summary);
        if (problem) throw problem;
        parts.push(...summary.jobs.map((j) => `${j.codebook}/${j.coder}: ${j.coded} coded, ${j.alreadyCoded} already coded`));
      }
      return [...parts, `LLM: waiting for ${waitingFor(pending)}`].join("; ");
    }
    const scope = codingScope(c, inputs);
    if (scope.only?.length === 0) {
      completeCodeRuns.set(c, scope);
      return "nothing new to code (sessions removed only)";
    }
    const summary = await runCode(scope.study, { coder: c.options.coder, model: modelOverrides(c) }, c.reporter);
    const problem = incompleteCoding(summary);
    if (problem) throw problem;
    completeCodeRuns.set(c, scope);
    return summary.jobs.map((j) => `${j.codebook}/${j.coder}: ${j.coded} coded, ${j.alreadyCoded} already coded`).join("; ") + scopeNote(scope.only);
  },
};

/**
 * What the analysis stages (agree to build) are a function of besides their inputs: the code
 * itself, by the same definition the memo uses (util/code-version.ts). With the package version
 * instead, an updated Colloquy kept every analysis its predecessor wrote ("unchanged since last
 * run"), fixed numbers included. Import and code keep the package version: re-importing every
 * inbox file or re-checking every code after any update would cost what they exist to save.
 */
const analysisCode = (): string => sha256(codeVersion());

/** Human coders (from colloquy.json) that have codes for a codebook. */
async function humansWithCodes(c: StageContext, codebook: string): Promise<string[]> {
  const coders = (await c.study.coders())[codebook] ?? [];
  return c.study.config.humanCoders.filter((h) => coders.includes(h));
}

const agreeStage: Stage = {
  name: "agree",
  needs: ["code"],
  description: "agreement of machine coders with human coders",
  writes: ["analysis"],
  async plan(c) {
    const pairs: string[] = [];
    for (const p of plans(c)) if ((await humansWithCodes(c, p.codebook)).length) pairs.push(p.codebook);
    return {
      // The disagreements list each turn's speaker and words (or none, for a session removed since): sessions count too.
      fingerprint: fingerprint({
        sessions: await sessionsHashes(c),
        codes: await codesHashes(c),
        plans: plans(c),
        humans: c.study.config.humanCoders,
        code: analysisCode(),
      }),
      work: pairs.length ? `agreement for ${pairs.join(", ")}` : "no human codes to compare against (colloquy.json humanCoders)",
      nothingToDo: pairs.length === 0,
      mustRun: missingOutputs(
        c,
        pairs.map((p) => agreementFiles.agreement.path(c.study.dir, p)),
      ),
    };
  },
  async run(c) {
    const lines: string[] = [];
    for (const p of plans(c)) {
      const humans = await humansWithCodes(c, p.codebook);
      if (!humans.length) continue;
      const coders = (await c.study.coders())[p.codebook] ?? [];
      const missing = p.coders.filter((m) => !coders.includes(m));
      let machine = p.coders;
      if (missing.length) {
        // The LLM's codes are on their way in a batch: agreement among the coders there are, said so.
        const pending = missing.every((m) => m === "llm") ? await pendingBatches(c.study.dir) : [];
        if (pending.length === 0)
          throw new Error(`no ${p.codebook} codes from ${missing.join(", ")}: run the code stage first (colloquy study ${c.study.dir} --only code)`);
        c.reporter.warn(`${p.codebook}: no llm codes yet (waiting for ${waitingFor(pending)}): agreement among the other coders only`);
        machine = p.coders.filter((m) => coders.includes(m));
        if (machine.length + humans.length < 2) {
          lines.push(`${p.codebook}: waiting for the LLM batch`);
          continue;
        }
      }
      const { report } = await (await import("../stages/agree.js")).runAgree(c.study, { codebook: p.codebook, coders: [...machine, ...humans] }, c.reporter);
      const kappas = report.variables.flatMap((v) =>
        v.pairs.map((pair) => `${pair.a} vs ${pair.b} kappa ${Number.isFinite(pair.kappa) ? pair.kappa.toFixed(3) : "n/a"}`),
      );
      lines.push(
        `${p.codebook}: ${report.coverage?.unitsCodedByAll ?? 0} turn(s) coded by all; ${kappas.slice(0, 3).join(", ")}${kappas.length > 3 ? ", …" : ""}`,
      );
    }
    return lines.join("; ");
  },
};

/**
 * Nominal codebooks of the plan (compare and the Bales analyses work on categories), each with the
 * coder whose codes they analyse: --coder, else the plan's analysisCoder, else its first coder.
 * An analysisCoder without codes is refused when the stage runs, not when it is planned: the run
 * plans every stage before the import stage brings people's codes from inbox/ and the code stage
 * makes a machine coder's (a new study, a coder just added).
 */
async function nominalPlans(c: StageContext, when: "planning" | "running") {
  const out: { codebook: string; coder: string }[] = [];
  for (const [i, p] of plans(c).entries()) {
    const coder = c.options.coder ?? p.analysisCoder ?? p.coders[0];
    if ((await loadCodebook(p.codebook, c.study.dir)).kind !== "nominal" || !coder) continue;
    const have = (await c.study.coders())[p.codebook] ?? [];
    if (when === "running" && coder === p.analysisCoder && !c.options.coder && !have.includes(coder))
      throw new CliError(
        `${c.study.paths.config}: codebooks[${i}].analysisCoder: ${coder} has no codes for "${p.codebook}" yet${have.length ? ` (coders with codes: ${have.join(", ")})` : ""}; import or make them first, or remove analysisCoder to analyse ${p.coders[0] ?? "the first coder"}'s codes`,
      );
    out.push({ codebook: p.codebook, coder });
  }
  return out;
}

const compareStage: Stage = {
  name: "compare",
  needs: ["code"],
  description: "code frequencies per condition, role and speaker; differences from control; tests",
  writes: ["analysis"],
  async plan(c) {
    const targets = await nominalPlans(c, "planning");
    return {
      fingerprint: fingerprint({
        sessions: await sessionsHashes(c),
        codes: await codesHashes(c),
        targets,
        compare: c.study.config.compare,
        code: analysisCode(),
      }),
      work: targets.length ? `compare conditions for ${targets.map((t) => `${t.codebook} (${t.coder})`).join(", ")}` : "no nominal codebook to compare",
      nothingToDo: targets.length === 0,
      mustRun: missingOutputs(
        c,
        targets.map((t) => compareFiles.compare.path(c.study.dir, t.codebook)),
      ),
    };
  },
  async run(c) {
    const written: string[] = [];
    for (const t of await nominalPlans(c, "running")) {
      const { files } = await (await import("../stages/compare.js")).runCompare(c.study, { codebook: t.codebook, coder: t.coder }, c.reporter);
      written.push(relative(c.study.paths.root, files.json));
    }
    return `wrote ${written.join(", ")}`;
  },
};

const statsStage: Stage = {
  name: "stats",
  needs: ["code"],
  description: "session metrics, participation, Bales profiles and sequences",
  writes: ["analysis"],
  async plan(c) {
    // The codebook `colloquy stats` takes by default: the first nominal codebook colloquy.json lists.
    const coded = (await nominalPlans(c, "planning"))[0];
    return {
      fingerprint: fingerprint({ sessions: await sessionsHashes(c), codes: await codesHashes(c), coded, code: analysisCode() }),
      work: `session metrics and participation${coded ? `, Bales and sequence analyses of ${coded.codebook} (${coded.coder})` : ""}`,
      mustRun: missingOutputs(c, [statsFiles.stats.path(c.study.dir)]),
    };
  },
  async run(c) {
    const coded = (await nominalPlans(c, "running"))[0];
    const { files } = await (await import("../stages/stats.js")).runStats(c.study, coded ? { codebook: coded.codebook, coder: coded.coder } : {}, c.reporter);
    return `wrote ${relative(c.study.paths.root, files.json)}`;
  },
};

const topicsCoder = (c: StageContext) => c.options.coder ?? c.study.config.topics.coder ?? "rules";

const topicsStage: Stage = {
  name: "topics",
  description: "topic trees and branching ratios",
  writes: ["analysis"],
  async plan(c) {
    const coder = topicsCoder(c);
    const config = c.study.config;
    return {
      // compare: the design and control condition decide the between-condition tests.
      fingerprint: fingerprint({
        sessions: await sessionsHashes(c),
        topics: config.topics,
        compare: config.compare,
        coder,
        model: coder === "llm" ? modelIdentity(c) : null,
        code: analysisCode(),
      }),
      work: `topic trees with the ${coder} coder`,
      mustRun: missingOutputs(c, [topicsFiles.topics.path(c.study.dir)]),
    };
  },
  async run(c) {
    const { runTopics, failedTopicRuns } = await import("../stages/topics.js");
    const summary = await runTopics(c.study, { coder: topicsCoder(c), model: modelOverrides(c) }, c.reporter);
    const problem = failedTopicRuns(summary);
    if (problem) throw problem;
    return `wrote ${relative(c.study.paths.root, summary.file)} (${summary.trees} tree(s))`;
  },
};

const conceptsStage: Stage = {
  name: "concepts",
  description: "noun concepts, production rates, lexical measures",
  writes: ["analysis"],
  async plan(c) {
    const lexiconPath = conceptsLexiconPath(c.study);
    const lexicon = lexiconPath && existsSync(lexiconPath) ? sha256(await readFile(lexiconPath)) : null;
    const config = c.study.config;
    return {
      fingerprint: fingerprint({ sessions: await sessionsHashes(c), concepts: config.concepts, compare: config.compare, lexicon, code: analysisCode() }),
      work: "noun concepts and concept rates",
      mustRun: missingOutputs(c, [conceptsFiles.concepts.path(c.study.dir)]),
    };
  },
  async run(c) {
    const { files } = await (await import("../stages/concepts.js")).runConcepts(c.study, {}, c.reporter);
    return `wrote ${relative(c.study.paths.root, files.json)}`;
  },
};

/** A hash of the dashboard app's JS and CSS (the prebundle, or web/ bundled now from source; memoised). */
async function webAppHash(): Promise<string> {
  const { webAssets } = await import("../report/webbundle.js");
  const { js, css } = await webAssets();
  return sha256(`${js}\u0000${css}`);
}

const buildStage: Stage = {
  name: "build",
  description: "the dashboard (static site)",
  writes: [],
  async plan(c) {
    const site = c.study.paths.site;
    return {
      fingerprint: fingerprint({
        sessions: await sessionsHashes(c),
        codes: await codesHashes(c),
        analysis: await analysisHashes(c),
        config: c.study.config,
        code: analysisCode(),
        // The dashboard app (dist/web, outside the modules codeVersion hashes): an update that
        // changes only the app must rebuild the site, as the package version used to make it.
        app: await webAppHash(),
      }),
      work: `build the dashboard into ${relative(process.cwd(), site) || site}`,
      mustRun: existsSync(join(site, "index.html")) ? undefined : "the site is missing",
    };
  },
  async run(c) {
    const result = await (await import("../stages/build.js")).runBuild(c.study, {}, c.reporter);
    return `site ready (${result.files.chunks} session file(s))`;
  },
};

export const studyStages: Stage[] = [importStage, codeStage, agreeStage, compareStage, statsStage, topicsStage, conceptsStage, buildStage];
