import { readFile } from "node:fs/promises";
import { z } from "zod";
import { parseYaml } from "../util/yaml.js";
import { CliError } from "../util/errors.js";
import { formatIssues } from "../transcript/validate.js";
import { applyPreset, presetIds, presets } from "./presets.js";

/**
 * A scenario file (JSON or YAML) describes a session to run: the task, the participants,
 * the turn-taking strategy and its parameters, when to stop, and the experimental
 * conditions. Strategy parameters are validated by the strategy's own schema
 * (policies/<name>.ts), with errors reported under `strategy.<field>`.
 */

export const participantSpecSchema = z
  .object({
    name: z.string().min(1),
    /** Defaults to a slug of the name. */
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]*$/)
      .optional(),
    role: z.string().optional(),
    persona: z.string().optional(),
    /** ai: LLM agent; human: types at the terminal; simulated-human: LLM following a playbook. */
    kind: z.enum(["ai", "human", "simulated-human"]).default("ai"),
    /** Per-participant model (defaults to the run's model). */
    model: z.string().optional(),
    /** For simulated humans: what they want and how they behave, step by step. */
    playbook: z.string().optional(),
    /** Reply length limit in words (strategies that keep replies short use it). */
    wordLimit: z.number().int().positive().optional(),
    /** Scene strategy: fixed lines a scripted participant says, in order. */
    script: z.array(z.string()).optional(),
    /** Free-form extra fields a strategy may read (e.g. party membership). */
    traits: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const conditionSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' or '-'"),
    description: z.string().optional(),
    /** Appended to the shared instructions in this condition. */
    instruction: z.string().optional(),
    /** Strategy parameter overrides in this condition (e.g. a different threshold). */
    strategy: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const stopSchema = z
  .object({
    maxTurns: z.number().int().positive().default(40),
    /** Simulated minutes. */
    maxMinutes: z.number().positive().optional(),
    /** Stop when every participant passes in a row (strategies that allow passing). */
    allPass: z.boolean().default(true),
  })
  .strict();

export const participantViewSchema = z
  .object({
    condition: z.boolean().default(false),
    kinds: z.boolean().default(false),
    systemEvents: z.array(z.string()).default([]),
  })
  .strict();

/** The steps around a live session on the participants' pages (scenario `studyFlow`; used with `colloquy run --serve`). */
export const studyFlowSchema = z
  .object({
    /** Shown before a person joins (what to do, how long, who to ask). */
    instructions: z.string().min(1).optional(),
    /** Consent text: the person joins only by agreeing to it; when they agreed is stored with each session. */
    consent: z.string().min(1).optional(),
    /** The first session starts when the operator starts it (the operator page shows who has joined), not when every page is open. */
    waitingRoom: z.boolean().default(false),
    /** When a session ends, each person may download its transcript as they saw it (plain text). */
    transcript: z.boolean().default(false),
  })
  .strict();

export type StudyFlow = z.infer<typeof studyFlowSchema>;

/** What participants' pages may show of the design (scenario `participantView`). */
export type ParticipantView = z.infer<typeof participantViewSchema>;

const scenarioFields = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/),
    /** A paper preset: the strategy, its parameters and model settings as published (docs/presets.md). */
    preset: z.enum(presetIds).optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    /** The task or topic given to everyone. */
    task: z.string().min(1),
    /** Team conventions every agent follows (role hierarchy, how to hand over work...). */
    sharedInstructions: z.string().default(""),
    participants: z.array(participantSpecSchema).min(1),
    strategy: z.object({ type: z.string() }).passthrough(),
    stop: stopSchema.default({ maxTurns: 40, allPass: true }),
    conditions: z.array(conditionSchema).default([{ name: "default" }]),
    model: z
      .object({
        model: z.string().optional(),
        temperature: z.number().min(0).max(2).optional(),
        maxTokens: z.number().int().positive().optional(),
      })
      .strict()
      .default({}),
    /**
     * What participants' pages show of the design (blind by default): the condition's name,
     * who is a person and who an AI, and which system lines (by event: "hand-raise", "invite",
     * "round", "mode", "roles", "impromptu", "no-answer", ...). The operator sees everything.
     */
    participantView: participantViewSchema.default({ condition: false, kinds: false, systemEvents: [] }),
    /** Consent and instructions before joining, a waiting room the operator releases, a transcript to download at the end. */
    studyFlow: studyFlowSchema.default({ waitingRoom: false, transcript: false }),
    /** Seconds per word when simulating typing time: agents and humans (defaults 0.3 and 1.5). */
    pace: z
      .object({ aiSecondsPerWord: z.number().nonnegative().default(0.3), humanSecondsPerWord: z.number().nonnegative().default(1.5) })
      .strict()
      .default({ aiSecondsPerWord: 0.3, humanSecondsPerWord: 1.5 }),
  })
  .strict();

/** The scenario schema; a `preset` fills in its strategy and model values first (the scenario's own win). */
export const scenarioSchema = z.preprocess(applyPreset, scenarioFields);

export type ParticipantSpec = z.infer<typeof participantSpecSchema>;
export type ConditionSpec = z.infer<typeof conditionSchema>;
export type Scenario = z.infer<typeof scenarioSchema>;

/**
 * Problems about participants that zod cannot see field by field: settings that only one kind
 * of participant uses, given to another kind (they would be silently ignored). A human's
 * playbook is allowed: scenarios switch a participant between simulated-human and human.
 */
function participantProblems(scenario: Scenario): string[] {
  const problems: string[] = [];
  scenario.participants.forEach((p, i) => {
    if (p.kind === "simulated-human" && !p.playbook?.trim())
      problems.push(`participants[${i}].playbook: a simulated-human participant needs a playbook (what they want and how they behave)`);
    if (p.kind === "human" && p.model !== undefined) problems.push(`participants[${i}].model: a human participant is not played by a model`);
    if (p.script !== undefined && scenario.strategy.type !== "scene")
      problems.push(`participants[${i}].script: fixed lines are only spoken in the scene strategy (strategy.type is "${scenario.strategy.type}")`);
  });
  return problems;
}

/** Parse a scenario's text; errors name the file and the field. */
export function parseScenario(text: string, where: string): Scenario {
  let value: unknown;
  try {
    value = /\.ya?ml$/i.test(where) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new CliError(`${where}: not valid ${/\.ya?ml$/i.test(where) ? "YAML" : "JSON"} (${(error as Error).message})`);
  }
  const parsed = scenarioSchema.safeParse(value);
  if (!parsed.success) throw new CliError(`${where}: invalid scenario: ${formatIssues(parsed.error)}`);
  const scenario = parsed.data;
  if (scenario.preset && scenario.strategy.type !== presets[scenario.preset].strategy.type) {
    throw new CliError(
      `${where}: invalid scenario: strategy.type "${scenario.strategy.type}" does not fit preset "${scenario.preset}", which is for the ${presets[scenario.preset].strategy.type} strategy (leave strategy.type out)`,
    );
  }
  const problems = participantProblems(scenario);
  if (problems.length) throw new CliError(`${where}: invalid scenario: ${problems.join("; ")}`);
  const names = new Set<string>();
  scenario.participants.forEach((p, i) => {
    if (names.has(p.name)) throw new CliError(`${where}: invalid scenario: participants[${i}].name "${p.name}" is used twice`);
    names.add(p.name);
  });
  const conditions = new Set<string>();
  scenario.conditions.forEach((c, i) => {
    if (conditions.has(c.name)) throw new CliError(`${where}: invalid scenario: conditions[${i}].name "${c.name}" is used twice`);
    conditions.add(c.name);
  });
  return scenario;
}

export async function loadScenario(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`${path}: cannot read scenario (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  return parseScenario(text, path);
}
