import { z } from "zod";

/**
 * `colloquy.json`, the study's one configuration file. Precedence everywhere is
 * CLI flag > this file > environment > default, written as one `??` chain at the use site.
 */
export const modelSettingsSchema = z
  .object({
    /** Model name as the endpoint knows it (e.g. gpt-4o-mini, llama3.1:8b). */
    model: z.string().optional(),
    /** OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama. */
    baseURL: z.string().url().optional(),
    temperature: z.number().min(0).max(2).optional(),
    seed: z.number().int().optional(),
    concurrency: z.number().int().positive().optional(),
    timeoutMs: z.number().int().positive().optional(),
    maxRetries: z.number().int().nonnegative().optional(),
    /** Prices in USD per million tokens, overriding the built-in table. */
    prices: z.record(z.string(), z.object({ input: z.number(), output: z.number() })).optional(),
  })
  .strict();

/** A human coder as stored: "human:<name>". */
const humanCoder = z.string().regex(/^human:.+/, 'a human coder as stored, "human:<name>" (e.g. "human:alice")');

export const codebookPlanSchema = z
  .object({
    /** Shipped codebook id (bales-ipa, pragmatic-style, ttct-creativity) or a path to a codebook file. */
    codebook: z.string(),
    /** Machine coders to run: "rules", "llm" and/or "learned" (trained on `train`). */
    coders: z.array(z.enum(["rules", "llm", "learned"])).default(["rules"]),
    /**
     * Whose codes of this codebook compare and stats analyse (default: the first of `coders`): a
     * machine coder of `coders`, or people's codes ("human:alice") when they coded every turn.
     */
    analysisCoder: z.union([z.enum(["rules", "llm", "learned"]), humanCoder]).optional(),
    /** Turn context for the LLM coder: turns before and after the target. */
    context: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).optional(),
    samples: z.number().int().positive().optional(),
    /** Learned coder: the human coders whose codes it learns from, e.g. ["human:alice"]. */
    train: z.array(humanCoder).min(1).optional(),
    /** Learned coder: code even when its cross-validated estimate is below the floor (the codes then say so). */
    allowBelowFloor: z.boolean().optional(),
    /** LLM coder: the human coders whose most similar coded turns go into each prompt as worked examples. */
    examples: z.array(humanCoder).min(1).optional(),
    /** LLM coder with examples: how many per request (default 8). */
    shots: z.number().int().positive().max(64).optional(),
    /** LLM coder with examples: never show a turn of the session being coded (honest evaluation). */
    examplesExcludeSession: z.boolean().optional(),
  })
  .strict()
  .superRefine((plan, ctx) => {
    if (plan.coders.includes("learned") && !plan.train)
      ctx.addIssue({ code: "custom", path: ["train"], message: 'the "learned" coder needs train: ["human:<name>", …], the coders whose codes it learns from' });
    const machine = plan.analysisCoder === "rules" || plan.analysisCoder === "llm" || plan.analysisCoder === "learned" ? plan.analysisCoder : undefined;
    if (machine && !plan.coders.includes(machine))
      ctx.addIssue({
        code: "custom",
        path: ["analysisCoder"],
        message: `"${plan.analysisCoder}" is not among this codebook's coders: add it to coders, or name people's codes ("human:<name>")`,
      });
    if (plan.train && !plan.coders.includes("learned"))
      ctx.addIssue({ code: "custom", path: ["train"], message: 'train is for the "learned" coder: add "learned" to coders' });
    if (!plan.coders.includes("llm")) {
      for (const key of ["examples", "shots", "examplesExcludeSession"] as const) {
        if (plan[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: `${key} is for the "llm" coder: add "llm" to coders` });
      }
    }
    if (!plan.examples && (plan.shots !== undefined || plan.examplesExcludeSession !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["examples"], message: 'shots and examplesExcludeSession go with examples: ["human:<name>"]' });
    }
  });

export const compareSettingsSchema = z
  .object({
    /** Condition every other condition is compared against. */
    control: z.string().optional(),
    /** Merge codes: new code id -> codes it replaces. */
    collapse: z.record(z.string(), z.array(z.string())).optional(),
    /** Codes left out of comparisons entirely. */
    drop: z.array(z.string()).optional(),
    /** Merge conditions: group name -> conditions it contains. */
    conditionGroups: z.record(z.string(), z.array(z.string())).optional(),
    /** Divide counts by the number of runs per condition so groups with more runs are not inflated. */
    normaliseByRuns: z.boolean().optional(),
    /**
     * The study's one design, used by compare, topics, concepts, the dashboard and the report
     * (src/analysis/shared/design.ts): "between" (the default: conditions are independent samples
     * of units) or "within" (the same people took part in several conditions, paired by id).
     */
    design: z.enum(["within", "between"]).optional(),
    /** The unit of analysis: "session" (the default) or "participant" (a person, by id; "within" implies it). */
    unit: z.enum(["participant", "session"]).optional(),
    /** Let AI agents and simulated participants be participant units (never unless declared). */
    agentUnits: z.boolean().optional(),
    /** The one test per question, from the decision table (docs/statistics.md); default: the design's permutation test. */
    test: z.enum(["permutation", "mann-whitney", "welch", "paired-permutation", "wilcoxon"]).optional(),
    /** Multiplicity adjustment within each family (default "holm"; "bh": Benjamini-Hochberg). */
    adjust: z.enum(["holm", "bh", "none"]).optional(),
    /** Monte Carlo resamples of a permutation test, and the most arrangements enumerated exactly (default 10,000). */
    resamples: z.number().int().min(100).optional(),
    /** Seed of the Monte Carlo and bootstrap streams (default 1). */
    seed: z.number().int().optional(),
    /** Older files: false meant no adjustment (now `"adjust": "none"`). */
    holm: z.boolean().optional(),
  })
  .strict();

export const topicSettingsSchema = z
  .object({
    coder: z.enum(["rules", "llm"]).optional(),
    scope: z.enum(["session", "participant"]).optional(),
    /** "human", "all", or a list of participant names. */
    speakers: z.union([z.enum(["human", "all"]), z.array(z.string())]).optional(),
    runs: z.number().int().positive().optional(),
  })
  .strict();

export const conceptSettingsSchema = z
  .object({
    speakers: z.union([z.enum(["human", "all"]), z.array(z.string())]).optional(),
    /** Path (relative to the study) of a lexicon file. */
    lexicon: z.string().optional(),
    /** Which minutes a concept rate divides by. */
    rateBasis: z.enum(["session", "active"]).optional(),
  })
  .strict();

/**
 * Who the study's speakers are, applied to every import (command line and inbox): names of AI
 * agents and of people (what --agents / --humans say for one import), and aliases: one person's
 * name -> the other names they appear under ("Ana Lopez": ["Ana", "A. Lopez"]).
 */
export const speakerSettingsSchema = z
  .object({
    ai: z.array(z.string().min(1)).optional(),
    human: z.array(z.string().min(1)).optional(),
    aliases: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
  })
  .strict();

export const studyConfigSchema = z
  .object({
    $schema: z.string().optional(),
    version: z.literal(1).default(1),
    title: z.string().optional(),
    description: z.string().optional(),
    /** Codebooks to apply and the machine coders for each. */
    codebooks: z.array(codebookPlanSchema).default([
      { codebook: "bales-ipa", coders: ["rules"] },
      { codebook: "pragmatic-style", coders: ["rules"] },
    ]),
    /** Human coders (as stored, e.g. "human:alice") that machine coders are checked against. */
    humanCoders: z.array(z.string()).default([]),
    import: z.object({ format: z.string().optional(), pathPattern: z.string().optional() }).strict().default({}),
    speakers: speakerSettingsSchema.default({}),
    compare: compareSettingsSchema.default({}),
    topics: topicSettingsSchema.default({}),
    concepts: conceptSettingsSchema.default({}),
    model: modelSettingsSchema.default({}),
  })
  .strict();

export type StudyConfig = z.infer<typeof studyConfigSchema>;
export type ModelSettings = z.infer<typeof modelSettingsSchema>;
export type CodebookPlan = z.infer<typeof codebookPlanSchema>;
export type CompareSettings = z.infer<typeof compareSettingsSchema>;
export type TopicSettings = z.infer<typeof topicSettingsSchema>;
export type ConceptSettings = z.infer<typeof conceptSettingsSchema>;
export type SpeakerSettings = z.infer<typeof speakerSettingsSchema>;
