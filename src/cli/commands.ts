import type { Command } from "commander";
import { registerInit } from "./init.js";
import { registerImport } from "./import.js";
import { registerSessions } from "./sessions.js";
import { registerExport } from "./export.js";
import { registerCodebook } from "./codebook.js";
import { registerCode } from "./code.js";
import { registerSample } from "./sample.js";
import { registerSheet } from "./sheet.js";
import { registerCodes } from "./codes.js";
import { registerAgree } from "./agree.js";
import { registerCompare } from "./compare.js";
import { registerStats } from "./stats.js";
import { registerTopics } from "./topics.js";
import { registerConcepts } from "./concepts.js";
import { registerReport } from "./report.js";
import { registerBuild } from "./build.js";
import { registerServe } from "./serve.js";
import { registerRun } from "./run.js";
import { registerStudy } from "./study.js";
import { registerRepair } from "./repair.js";
import { registerDemo } from "./demo.js";

/** Every command, in the order `colloquy --help` lists them (roughly the order of a study). */
export function registerCommands(program: Command): void {
  registerInit(program);
  registerImport(program);
  registerSessions(program);
  registerExport(program);
  registerCodebook(program);
  registerCode(program);
  registerSample(program);
  registerSheet(program);
  registerCodes(program);
  registerAgree(program);
  registerCompare(program);
  registerStats(program);
  registerTopics(program);
  registerConcepts(program);
  registerReport(program);
  registerBuild(program);
  registerServe(program);
  registerRun(program);
  registerStudy(program);
  registerRepair(program);
  registerDemo(program);
}
