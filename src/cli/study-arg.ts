import { Argument, type Command } from "commander";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError } from "../util/errors.js";

/*
 * One convention for naming the study: the `<study>` argument, with `--study <dir>` as an alias
 * (`colloquy export my-study` and `colloquy export --study my-study` are the same). Commands
 * declare it with `studyArgument()`; `checkStudyBeforeAction` (a pre-action hook of the program)
 * resolves it and refuses a folder that is not a study before the command does any work.
 */
interface StudyArgumentSpec {
  /** The argument may be left out (agree with --csv; run, which has a default study). */
  optional: boolean;
  /** The command creates the study when needed (run), so a folder without colloquy.json is fine here. */
  creates: boolean;
}

const specs = new WeakMap<Argument, StudyArgumentSpec>();

/**
 * The study argument: `.addArgument(studyArgument())`. Optional on the command line so that
 * `--study` can stand for it (added by `addStudyAliases`); a study argument followed by more
 * arguments (`topics review <study> <files...>`) is `{ position: "first" }` and has no alias.
 */
export function studyArgument(options: { description?: string; optional?: boolean; creates?: boolean; position?: "first" } = {}): Argument {
  const first = options.position === "first";
  const argument = new Argument(first ? "<study>" : "[study]", `${options.description ?? "study folder"}${first ? "" : " (or --study <dir>)"}`);
  specs.set(argument, { optional: options.optional ?? false, creates: options.creates ?? false });
  return argument;
}

/** Give every command with an optional study argument the `--study <dir>` alias. Called once the commands are registered. */
export function addStudyAliases(program: Command): void {
  for (const command of program.commands) {
    addStudyAliases(command);
    const argument = command.registeredArguments.find((a) => specs.has(a));
    if (argument && !argument.required && !command.options.some((o) => o.long === "--study")) {
      command.option("--study <study>", "the study folder (the same as the argument)");
    }
  }
}

/** Why `dir` is not a study, or undefined when it is one (holds colloquy.json). */
export function notAStudy(dir: string): string | undefined {
  const root = resolve(dir);
  if (existsSync(join(root, "colloquy.json"))) return undefined;
  const what = existsSync(root) ? "not a Colloquy study (no colloquy.json)" : "no such study folder: not a Colloquy study";
  return `${dir}: ${what}; create one with \`colloquy init ${dir}\``;
}

/** Throw the "not a Colloquy study" error for `dir` when it is not a study. */
export function requireStudy(dir: string): void {
  const problem = notAStudy(dir);
  if (problem) throw new CliError(problem);
}

/** True when `dir` does not exist or is an empty folder: a study may be created there without asking. */
export function isNewOrEmpty(dir: string): boolean {
  if (!existsSync(dir)) return true;
  return statSync(dir).isDirectory() && readdirSync(dir).length === 0;
}

/**
 * Pre-action hook: put the study (argument or `--study`) in the argument's place, and check it
 * is a study unless the command creates one. Runs before any command loads its work.
 */
export function checkStudyBeforeAction(action: Command): void {
  const index = action.registeredArguments.findIndex((a) => specs.has(a));
  if (index < 0) return;
  const spec = specs.get(action.registeredArguments[index])!;
  const positional = action.processedArgs[index] as string | undefined;
  const flag = action.opts().study as string | undefined;
  if (positional !== undefined && flag !== undefined && resolve(positional) !== resolve(flag)) {
    throw new CliError(`two studies named: "${positional}" and --study "${flag}"; give one`);
  }
  const study = positional ?? flag;
  if (study === undefined) {
    if (spec.optional) return;
    throw new CliError(`name the study folder: colloquy ${action.name()} <study> (create one with \`colloquy init <dir>\`)`);
  }
  action.processedArgs[index] = study;
  if (!spec.creates) requireStudy(study);
}
