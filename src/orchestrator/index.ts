/** Public API of the orchestrator: run multi-agent sessions with turn-taking strategies. */
export { scenarioSchema, parseScenario, loadScenario, type Scenario, type ParticipantSpec, type ConditionSpec } from "./scenario.js";
export { Conversation, type SayOptions } from "./conversation.js";
export { OrchestratorError } from "./orchestrator-error.js";
export type { CompleteOptions } from "./model-calls.js";
export { parseJsonReply } from "./json-reply.js";
export { scriptedHuman, terminalHuman, type HumanInput, type HumanRequest, type ApprovalRequest, type ApprovalAnswer } from "./human.js";
export type { SessionEvent, SessionObserver } from "./observer.js";
export { serveLive, LiveHub } from "./live/index.js";
export { createRandom, deriveSeed, type Random } from "./random.js";
export { defineStrategy, type Strategy } from "./strategy.js";
export { strategies } from "./policies/index.js";
export { roleSets } from "./policies/role-sets.js";
export { runScenario, resolveStrategy, sessionIdFor, type RunScenarioOptions, type RunOutcome } from "./run.js";
export { presets, type Preset } from "./presets.js";
export { validateScenarioFile, type ScenarioCheck } from "./validate.js";
export { planRun, type RunPlan } from "./dry-run.js";
