import { existsSync } from "node:fs";
import { estimateCost, priceFor, type PriceTable } from "../llm/prices.js";
import { sessionPath } from "../study/study.js";
import type { Scenario } from "./scenario.js";
import { resolveStrategy, selectConditions, sessionIdFor } from "./run.js";
import { estimateSession, type SessionEstimate } from "./estimate.js";

export interface PlannedSession extends SessionEstimate {
  sessionId: string;
  condition: string;
  run: number;
  strategy: string;
  /** True when the session is already in the study and `colloquy run` would skip it. */
  exists: boolean;
}

export interface RunPlan {
  sessions: PlannedSession[];
  model: string;
  /** Totals over the sessions that would run (not those already there). */
  total: { requests: number; promptTokens: number; completionTokens: number; estimatedCost?: number };
}

/**
 * What `colloquy run` would do, without calling a model or writing anything: every session
 * (condition x run), whether it is already in the study, and its estimated requests, tokens and
 * cost (prices from src/llm/prices.ts and colloquy.json `model.prices`; local endpoints are free).
 */
export function planRun(
  scenario: Scenario,
  options: { study: string; runs: number; conditions?: string[]; model: string; prices?: PriceTable; local?: boolean },
): RunPlan {
  const conditions = selectConditions(scenario, options.conditions);
  const sessions: PlannedSession[] = [];
  for (const condition of conditions) {
    const { strategy, params } = resolveStrategy(scenario, condition);
    const estimate = estimateSession(scenario, strategy.type, params as Record<string, unknown>);
    for (let run = 1; run <= options.runs; run++) {
      const sessionId = sessionIdFor(scenario, condition.name, run);
      sessions.push({
        sessionId,
        condition: condition.name,
        run,
        strategy: strategy.type,
        exists: existsSync(sessionPath(options.study, sessionId)),
        ...estimate,
      });
    }
  }
  const running = sessions.filter((s) => !s.exists);
  const sum = (key: "requests" | "promptTokens" | "completionTokens") => running.reduce((total, s) => total + s[key], 0);
  const total = { requests: sum("requests"), promptTokens: sum("promptTokens"), completionTokens: sum("completionTokens") };
  const cost = estimateCost(priceFor(options.model, { overrides: options.prices, local: options.local }), total.promptTokens, total.completionTokens);
  return { sessions, model: options.model, total: { ...total, ...(cost !== undefined ? { estimatedCost: cost } : {}) } };
}
