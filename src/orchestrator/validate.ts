import { CliError, errorMessage } from "../util/errors.js";
import { loadScenario, type Scenario } from "./scenario.js";
import { resolveStrategy } from "./run.js";

/** One condition of a valid scenario: its strategy and the parameters it will run with (defaults filled in). */
export interface ValidatedCondition {
  name: string;
  strategy: string;
  params: unknown;
}

export interface ScenarioCheck {
  scenario: Scenario;
  conditions: ValidatedCondition[];
}

/**
 * Check a scenario file as `colloquy run` would before running anything, but collecting every
 * problem: the file and every field (zod, and participant settings, see parseScenario), cross-field rules (e.g. compression keepLast < after,
 * pauseSeconds [min, max] in order), names that must resolve, and each condition's strategy
 * overrides. Throws one CliError listing them all, each naming its field.
 */
export async function validateScenarioFile(path: string): Promise<ScenarioCheck> {
  const scenario = await loadScenario(path);
  const problems: string[] = [];
  const conditions: ValidatedCondition[] = [];
  for (const condition of scenario.conditions) {
    try {
      const { strategy, params } = resolveStrategy(scenario, condition);
      conditions.push({ name: condition.name, strategy: strategy.type, params });
    } catch (error) {
      // "scenario x (condition "two"): invalid strategy parameters: a; b" -> one line per problem, naming the condition.
      const match = errorMessage(error).match(/^scenario \S+(?: \((condition "[^"]+")\))?: invalid strategy parameters: ([\s\S]*)$/);
      if (!match) problems.push(errorMessage(error));
      else for (const problem of match[2].split("; ")) problems.push(`${match[1] ? `${match[1]}: ` : ""}${problem}`);
    }
  }
  if (problems.length) throw new CliError(`${path}: invalid scenario:\n  ${[...new Set(problems)].join("\n  ")}`);
  return { scenario, conditions };
}
