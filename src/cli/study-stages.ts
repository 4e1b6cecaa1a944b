import { readdir, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { loadSessions, studyPaths } from "../study/study.js";
import { dryRunCoding } from "../coding/job.js";
import { createChatModel, resolveModelConfig } from "../llm/index.js";
import { listCoders, codesPath } from "../coding/store.js";
import { loadCodebook } from "../coding/codebook/load.js";
import { RULES_CODER_VERSION } from "../coding/rules/index.js";
import { toolVersion } from "../util/provenance.js";
import { hashValue, sha256 } from "../util/hash.js";
import { isForced } from "../pipeline/run.js";
import { fileHashes, fingerprint } from "../pipeline/fingerprint.js";
import type { Stage, StageContext } from "../pipeline/types.js";
import { runCommand } from "./run-command.js";

/**
 * The stages of `colloquy study`, in order. Each stage runs the same command a researcher
 * would run by hand (import, code, agree, compare, stats, topics, concepts, build) with the
 * study's colloquy.json as its settings; its fingerprint covers everything its outputs
 * depend on, so unchanged stages are skipped.
 */

/** A reason to run when any of the stage's output files (in analysis/) is missing. */
function missingOutputs(c: StageContext, files: string[]): string | undefined {
  const missing = files.filter((f) => !existsSync(join(studyPaths(c.study).analysis, f)));
  return missing.length ? `missing ${missing.join(", ")}` : undefined;
}

const sessionsHashes = (c: StageContext) => fileHashes(studyPaths(c.study).root, studyPaths(c.study).sessions);
const codesHashes = (c: StageContext) => fileHashes(studyPaths(c.study).root, studyPaths(c.study).codes, (p) => !p.endsWith(".failures.jsonl"));
const analysisHashes = (c: StageContext) => fileHashes(studyPaths(c.study).root, studyPaths(c.study).analysis);

/** Machine coders of each codebook plan, with the pipeline's --coder override applied. */
function plans(c: StageContext): { codebook: string; coders: ("rules" | "llm")[] }[] {
  return c.config.codebooks.map((p) => ({ codebook: p.codebook, coders: c.options.coder ? [c.options.coder] : p.coders }));
}

function modelFlags(c: StageContext): string[] {
  return [...(c.options.model ? ["--model", c.options.model] : []), ...(c.options.baseUrl ? ["--base-url", c.options.baseUrl] : [])];
}

/** What decides an LLM's replies (never the key): part of the fingerprint of LLM stages. */
function modelIdentity(c: StageContext): unknown {
  return { cli: { model: c.options.model, baseUrl: c.options.baseUrl }, config: c.config.model, env: { model: process.env.COLLOQUY_MODEL ?? process.env.OPENAI_MODEL, baseUrl: process.env.OPENAI_BASE_URL } };
}

async function inboxFiles(c: StageContext): Promise<Record<string, string>> {
  const paths = studyPaths(c.study);
  return fileHashes(paths.inbox, paths.inbox);
}

/** Inbox files to import: new or changed ones; all of them when the import settings changed. */
async function inboxWork(c: StageContext): Promise<{ files: Record<string, string>; todo: string[]; settings: string; reason: string }> {
  const files = await inboxFiles(c);
  const settings = fingerprint({ pathPattern: c.config.import.pathPattern, format: c.config.import.format, tool: toolVersion });
  const forced = isForced(c.options, "import");
  const all = forced || (c.state.importSettings !== undefined && c.state.importSettings !== settings);
  const todo = Object.keys(files).filter((f) => all || c.state.imported[f] !== files[f]);
  const reason = all && !forced ? " (import settings changed: all files again)" : "";
  return { files, todo, settings, reason };
}

const importStage: Stage = {
  name: "import",
  description: "import new or changed transcripts from inbox/",
  async plan(c) {
    const { files, todo, settings, reason } = await inboxWork(c);
    return {
      fingerprint: fingerprint({ files, settings }),
      work: todo.length ? `import ${todo.length} new or changed file(s) from inbox/${reason}` : "no new files in inbox/",
      nothingToDo: todo.length === 0,
    };
  },
  async run(c) {
    const paths = studyPaths(c.study);
    const { files, todo, settings } = await inboxWork(c);
    if (todo.length === 0) return "no new files in inbox/";
    const args = ["import", ...todo.map((f) => join(paths.inbox, f)), "--study", c.study];
    if (c.config.import.pathPattern) args.push("--path-pattern", c.config.import.pathPattern);
    if (c.config.import.format) args.push("--format", c.config.import.format);
    await runCommand(args, c.reporter);
    for (const f of todo) c.state.imported[f] = files[f];
    c.state.importSettings = settings;
    return `imported ${todo.length} file(s)`;
  },
};

const codeStage: Stage = {
  name: "code",
  description: "code every turn with each codebook and machine coder",
  async plan(c) {
    const sessions = await loadSessions(c.study);
    const llm = plans(c).some((p) => p.coders.includes("llm"));
    // Built only to estimate prompts and look up the cache: nothing is sent while planning.
    const model = llm ? createChatModel(resolveModelConfig({ cli: { model: c.options.model, baseURL: c.options.baseUrl }, study: c.config.model, studyDir: c.study })) : undefined;
    const jobs: string[] = [];
    const versions: string[] = [];
    let toCode = 0;
    let requests = 0;
    let promptTokens = 0;
    for (const plan of plans(c)) {
      const codebook = await loadCodebook(plan.codebook, c.study);
      // The whole definition, not just id@version: a researcher's own codebook may change in place.
      versions.push(hashValue(codebook));
      for (const coder of plan.coders) {
        const dry = await dryRunCoding({ study: c.study, sessions, codebook, coder, model: coder === "llm" ? model : undefined });
        jobs.push(`${plan.codebook}/${coder} (${dry.toCode} new turn${dry.toCode === 1 ? "" : "s"})`);
        toCode += dry.toCode;
        requests += dry.requests - dry.cachedRequests;
        promptTokens += dry.promptTokens;
      }
    }
    return {
      fingerprint: fingerprint({ sessions: await sessionsHashes(c), plans: plans(c), versions, rules: RULES_CODER_VERSION, model: llm ? modelIdentity(c) : null, tool: toolVersion }),
      work: `code ${jobs.join(", ") || "nothing"}`,
      nothingToDo: jobs.length === 0,
      // Turns without codes (e.g. a deleted codes file) are coded whatever the fingerprint says.
      mustRun: toCode > 0 ? `${toCode} turn(s) have no codes yet` : undefined,
      llm: llm ? { requests, promptTokens } : undefined,
    };
  },
  async run(c) {
    const lines: string[] = [];
    for (const plan of plans(c)) {
      for (const coder of plan.coders) {
        const out = await runCommand(["code", c.study, "--codebook", plan.codebook, "--coder", coder, ...(coder === "llm" ? modelFlags(c) : [])], c.reporter);
        lines.push(out.trim().split("\n").at(-1) ?? "");
      }
    }
    return lines.join("; ");
  },
};

/** Human coders (from colloquy.json) that have codes for a codebook. */
async function humansWithCodes(c: StageContext, codebook: string): Promise<string[]> {
  const coders = (await listCoders(c.study))[codebook] ?? [];
  return c.config.humanCoders.filter((h) => coders.includes(h));
}

const agreeStage: Stage = {
  name: "agree",
  description: "agreement of machine coders with human coders",
  async plan(c) {
    const pairs: string[] = [];
    for (const p of plans(c)) if ((await humansWithCodes(c, p.codebook)).length) pairs.push(p.codebook);
    return {
      fingerprint: fingerprint({ codes: await codesHashes(c), plans: plans(c), humans: c.config.humanCoders, tool: toolVersion }),
      work: pairs.length ? `agreement for ${pairs.join(", ")}` : "no human codes to compare against (colloquy.json humanCoders)",
      nothingToDo: pairs.length === 0,
      mustRun: missingOutputs(c, pairs.map((p) => `agreement-${p}.json`)),
    };
  },
  async run(c) {
    const lines: string[] = [];
    for (const p of plans(c)) {
      const humans = await humansWithCodes(c, p.codebook);
      if (!humans.length) continue;
      const missing = p.coders.filter((m) => !existsSync(codesPath(c.study, p.codebook, m)));
      if (missing.length) throw new Error(`no ${p.codebook} codes from ${missing.join(", ")}: run the code stage first (colloquy study ${c.study} --only code)`);
      const out = await runCommand(["agree", c.study, "--codebook", p.codebook, "--coders", [...p.coders, ...humans].join(",")], c.reporter);
      lines.push(`${p.codebook}: ${out.trim().split("\n").find((l) => /kappa|alpha/.test(l))?.trim() ?? "done"}`);
    }
    return lines.join("; ");
  },
};

/** Nominal codebooks of the plan (compare and the Bales analyses work on categories). */
async function nominalPlans(c: StageContext) {
  const out: { codebook: string; coder: string }[] = [];
  for (const p of plans(c)) {
    if ((await loadCodebook(p.codebook, c.study)).kind === "nominal" && p.coders.length) out.push({ codebook: p.codebook, coder: p.coders[0] });
  }
  return out;
}

const compareStage: Stage = {
  name: "compare",
  description: "code frequencies per condition, role and speaker; differences from control; tests",
  async plan(c) {
    const targets = await nominalPlans(c);
    return {
      fingerprint: fingerprint({ sessions: await sessionsHashes(c), codes: await codesHashes(c), targets, compare: c.config.compare, tool: toolVersion }),
      work: targets.length ? `compare conditions for ${targets.map((t) => `${t.codebook} (${t.coder})`).join(", ")}` : "no nominal codebook to compare",
      nothingToDo: targets.length === 0,
      mustRun: missingOutputs(c, targets.map((t) => `compare-${t.codebook}.json`)),
    };
  },
  async run(c) {
    const targets = await nominalPlans(c);
    for (const t of targets) await runCommand(["compare", c.study, "--codebook", t.codebook, "--coder", t.coder], c.reporter);
    return `wrote ${targets.map((t) => `analysis/compare-${t.codebook}.json`).join(", ")}`;
  },
};

const statsStage: Stage = {
  name: "stats",
  description: "session metrics, participation, Bales profiles and sequences",
  async plan(c) {
    const bales = (await nominalPlans(c)).find((t) => t.codebook === "bales-ipa");
    return {
      fingerprint: fingerprint({ sessions: await sessionsHashes(c), codes: await codesHashes(c), bales, tool: toolVersion }),
      work: `session metrics and participation${bales ? `, Bales analyses (${bales.coder})` : ""}`,
      mustRun: missingOutputs(c, ["stats.json"]),
    };
  },
  async run(c) {
    const bales = (await nominalPlans(c)).find((t) => t.codebook === "bales-ipa");
    await runCommand(["stats", c.study, ...(bales ? ["--codebook", "bales-ipa", "--coder", bales.coder] : [])], c.reporter);
    return "wrote analysis/stats.json";
  },
};

const topicsStage: Stage = {
  name: "topics",
  description: "topic trees and branching ratios",
  async plan(c) {
    const coder = c.options.coder ?? c.config.topics.coder ?? "rules";
    return {
      // compare: the design and control condition decide the between-condition tests.
      fingerprint: fingerprint({ sessions: await sessionsHashes(c), topics: c.config.topics, compare: c.config.compare, coder, model: coder === "llm" ? modelIdentity(c) : null, tool: toolVersion }),
      work: `topic trees with the ${coder} coder`,
      mustRun: missingOutputs(c, ["topics.json"]),
    };
  },
  async run(c) {
    const coder = c.options.coder ?? c.config.topics.coder ?? "rules";
    await runCommand(["topics", c.study, "--coder", coder, ...(coder === "llm" ? modelFlags(c) : [])], c.reporter);
    return "wrote analysis/topics.json";
  },
};

const conceptsStage: Stage = {
  name: "concepts",
  description: "noun concepts, production rates, lexical measures",
  async plan(c) {
    const lexiconPath = c.config.concepts.lexicon ? join(c.study, c.config.concepts.lexicon) : undefined;
    const lexicon = lexiconPath && existsSync(lexiconPath) ? sha256(await readFile(lexiconPath)) : null;
    return {
      fingerprint: fingerprint({ sessions: await sessionsHashes(c), concepts: c.config.concepts, compare: c.config.compare, lexicon, tool: toolVersion }),
      work: "noun concepts and concept rates",
      mustRun: missingOutputs(c, ["concepts.json"]),
    };
  },
  async run(c) {
    await runCommand(["concepts", c.study], c.reporter);
    return "wrote analysis/concepts.json";
  },
};

const buildStage: Stage = {
  name: "build",
  description: "the dashboard (static site)",
  async plan(c) {
    const site = studyPaths(c.study).site;
    return {
      fingerprint: fingerprint({ sessions: await sessionsHashes(c), codes: await codesHashes(c), analysis: await analysisHashes(c), config: c.config, tool: toolVersion }),
      work: `build the dashboard into ${relative(process.cwd(), site) || site}`,
      mustRun: existsSync(join(site, "index.html")) ? undefined : "the site is missing",
    };
  },
  async run(c) {
    await runCommand(["build", c.study], c.reporter);
    const files = await readdir(studyPaths(c.study).site).catch(() => []);
    return `site ready (${files.length} files)`;
  },
};

export const studyStages: Stage[] = [importStage, codeStage, agreeStage, compareStage, statsStage, topicsStage, conceptsStage, buildStage];
