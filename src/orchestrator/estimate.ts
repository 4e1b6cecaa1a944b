import type { Scenario } from "./scenario.js";
import { resolveAgents } from "./agent.js";

/**
 * A rough, documented estimate of what one session will ask of the model, before running it
 * (`colloquy run --dry-run`). It is an upper-leaning estimate, not a promise: sessions end early
 * when everyone passes or nobody is confident, and replies are often shorter than their limit.
 *
 * Model of a session: `turns` spoken turns; each turn makes `perTurn` requests (replies and
 * decisions) and `fixed` requests happen once. A request's prompt is the system prompt
 * (SYSTEM_TOKENS) plus the visible history (WORDS_PER_TURN words per earlier turn, capped at
 * `historyCap` turns where a strategy shows only part of it) plus its instruction
 * (INSTRUCTION_TOKENS). A reply costs its word limit in tokens; a decision (a rating, ranking,
 * choice) DECISION_TOKENS. Tokens are TOKENS_PER_WORD per English word.
 */
export interface SessionEstimate {
  turns: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** What the numbers assume, in words, for the printout. */
  assumptions: string;
}

const TOKENS_PER_WORD = 1.33;
const SYSTEM_TOKENS = 200;
const INSTRUCTION_TOKENS = 80;
const DECISION_TOKENS = 40;

interface Plan {
  turns: number;
  /** Requests per spoken turn that write a reply. */
  replies: number;
  /** Other requests per spoken turn (ratings, rankings, checks). */
  decisions: number;
  /** Requests made once (initial thoughts, opening choice, summary...). */
  fixed: number;
  replyWords: number;
  historyCap: number;
  assumptions: string;
  /** Hard cap on requests (e.g. maxDecisions). */
  maxRequests?: number;
}

/** Estimate one session of `scenario` with the strategy parameters `params` (validated, defaults filled). */
export function estimateSession(scenario: Scenario, type: string, params: Record<string, unknown>): SessionEstimate {
  const plan = planFor(scenario, type, params);
  const wordsPerTurn = Math.min(plan.replyWords, 60);
  let promptTokens = 0;
  const perTurn = plan.replies + plan.decisions;
  for (let i = 0; i < plan.turns; i++) {
    const history = Math.min(i, plan.historyCap) * wordsPerTurn * TOKENS_PER_WORD;
    promptTokens += perTurn * (SYSTEM_TOKENS + INSTRUCTION_TOKENS + history);
  }
  promptTokens += plan.fixed * (SYSTEM_TOKENS + INSTRUCTION_TOKENS + Math.min(plan.turns, plan.historyCap) * wordsPerTurn * TOKENS_PER_WORD);
  let requests = plan.fixed + plan.turns * perTurn;
  let completionTokens = plan.turns * plan.replies * plan.replyWords * TOKENS_PER_WORD + (plan.turns * plan.decisions + plan.fixed) * DECISION_TOKENS;
  if (plan.maxRequests !== undefined && requests > plan.maxRequests) {
    const scale = plan.maxRequests / requests;
    requests = plan.maxRequests;
    promptTokens *= scale;
    completionTokens *= scale;
  }
  const maxTokens = scenario.model.maxTokens;
  if (maxTokens !== undefined) completionTokens = Math.min(completionTokens, requests * maxTokens);
  return {
    turns: plan.turns,
    requests: Math.round(requests),
    promptTokens: Math.round(promptTokens),
    completionTokens: Math.round(completionTokens),
    assumptions: plan.assumptions,
  };
}

function planFor(scenario: Scenario, type: string, p: Record<string, unknown>): Plan {
  const agents = resolveAgents(scenario);
  const machines = agents.filter((a) => a.kind !== "human");
  const maxTurns = scenario.stop.maxTurns;
  const num = (key: string, fallback = 0) => (typeof p[key] === "number" ? (p[key] as number) : fallback);
  const words = num("wordLimit", 80);
  switch (type) {
    case "round-robin": {
      const order = (p.order as string[] | undefined) ?? agents.map((a) => a.name);
      const ai = order.filter((n) => agents.find((a) => a.name.toLowerCase() === n.toLowerCase() || a.id === n)?.kind !== "human").length;
      const turns = p.mode === "pipeline" ? Math.min(maxTurns, num("passes", 1) * order.length) : maxTurns;
      return {
        turns,
        replies: ai / order.length,
        decisions: 0,
        fixed: 0,
        replyWords: 120,
        historyCap: Infinity,
        assumptions: `${turns} turns, ${ai} of ${order.length} speakers are agents; replies of ~120 words (no limit set)`,
      };
    }
    case "rounds": {
      const turns = Math.min(maxTurns, num("rounds", 5) * machines.length);
      return {
        turns,
        replies: 1,
        decisions: 0,
        fixed: 0,
        replyWords: 150,
        historyCap: machines.length + 1,
        assumptions: `${num("rounds", 5)} rounds x ${machines.length} agents; each sees the previous round only; answers of ~150 words`,
      };
    }
    case "confidence": {
      const speakers = machines.filter((a) => a.name !== p.summariser).length;
      return {
        turns: maxTurns,
        replies: 1,
        decisions: speakers,
        fixed: p.summariser ? 1 : 0,
        replyWords: words,
        historyCap: Infinity,
        assumptions: `up to ${maxTurns} turns, every agent (${speakers}) rates its confidence before each turn; ${words}-word replies`,
      };
    }
    case "ranked": {
      const facilitator = Boolean(p.facilitator);
      const compression = (p.compression as { after: number; keepLast: number; refreshEvery: number } | undefined) ?? {
        after: 15,
        keepLast: 8,
        refreshEvery: 1,
      };
      const thinkers = machines.length - (facilitator ? 1 : 0);
      const decisions =
        1 -
        num("randomRate", 0.2) +
        (maxTurns > compression.after ? 1 / compression.refreshEvery : 0) +
        (facilitator && num("driftCheckEvery") > 0 ? 1 / num("driftCheckEvery") : 0);
      const facilitation = facilitator && num("facilitateEvery") > 0 ? 1 / num("facilitateEvery") : 0;
      // The opening choice is the first turn's ranking (counted in `decisions`).
      const fixed = (p.initialThoughts === false ? 0 : thinkers) + (p.welcome ? 1 : 0);
      return {
        turns: maxTurns,
        replies: 1 + facilitation,
        decisions,
        fixed,
        replyWords: words,
        historyCap: compression.keepLast + 4,
        assumptions: `up to ${maxTurns} turns; a ranking on ${Math.round((1 - num("randomRate", 0.2)) * 100)}% of turns; history compressed beyond ${compression.after} turns; ${words}-word replies`,
      };
    }
    case "autonomous":
      return {
        turns: maxTurns,
        replies: 0,
        decisions: machines.length,
        fixed: machines.length,
        replyWords: words,
        historyCap: Infinity,
        maxRequests: num("maxDecisions", 500),
        assumptions: `up to ${maxTurns} messages, each waking all ${machines.length} agents to decide (JSON with the message); capped at maxDecisions ${num("maxDecisions", 500)}`,
      };
    case "scene": {
      const snippets = (p.snippets as { id: string; turns: number; script?: unknown[]; next: string[]; partyOrder?: string }[]) ?? [];
      let planned = 0;
      let scripted = 0;
      const seen = new Set<string>();
      // Follow the first `next` of each snippet (a typical path); loops count once.
      for (let s = snippets.find((x) => x.id === (p.start ?? snippets[0]?.id)); s && !seen.has(s.id); s = snippets.find((x) => x.id === s!.next[0])) {
        seen.add(s.id);
        if (s.script) scripted += s.script.length;
        else planned += s.turns;
      }
      const turns = Math.min(maxTurns, planned + scripted);
      const generatedShare = turns > 0 ? Math.min(planned, turns) / turns : 0;
      const moderated = p.partyOrder === "moderated" ? 1 : 0;
      const interruptions = ((p.interruptions as { probability: number }[]) ?? []).reduce((sum, r) => sum + r.probability / Math.max(1, agents.length), 0);
      const derails = ((p.derailers as { probability: number; length: number }[]) ?? []).reduce((sum, d) => sum + d.probability * d.length, 0);
      return {
        turns,
        replies: generatedShare * (1 + moderated) + interruptions + derails,
        decisions: 0,
        fixed: 0,
        replyWords: num("wordLimit", 50),
        historyCap: Infinity,
        assumptions: `${turns} turns along the first path of the snippet graph (${scripted} scripted); interruptions and derails at their probabilities`,
      };
    }
    default:
      return {
        turns: maxTurns,
        replies: 1,
        decisions: 0,
        fixed: 0,
        replyWords: words,
        historyCap: Infinity,
        assumptions: `${maxTurns} turns, one request each`,
      };
  }
}
