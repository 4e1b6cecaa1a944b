import type { Participant, Session } from "../transcript/schema.js";
import type { Conversation } from "./conversation.js";

/** What a session file is made of: a running conversation has it all, a journal read back has it too. */
export type SessionSource = Pick<
  Conversation,
  "scenario" | "condition" | "run" | "seed" | "sessionId" | "participants" | "turns" | "usage" | "endReason" | "humanAnswers" | "notes" | "clock"
>;

export interface SessionStatus {
  incomplete: boolean;
  failure?: string;
  strategy: Record<string, unknown>;
  model: Record<string, unknown>;
}

/** The native session (complete or, after a failure, incomplete and resumable). */
export function sessionOf(source: SessionSource, status: SessionStatus): Session {
  const participants: Participant[] = source.participants.map((p) => ({
    id: p.id,
    name: p.name,
    ...(p.role ? { role: p.role } : {}),
    // A playbook participant is a model playing a person: its own kind, never "human".
    kind: p.kind === "ai" ? "ai" : p.kind === "simulated-human" ? "simulated" : "human",
    ...(p.persona || p.playbook ? { persona: [p.persona, p.playbook].filter(Boolean).join("\n\n") } : {}),
    metadata: { scenarioKind: p.kind, ...(p.kind === "simulated-human" ? { simulated: true } : {}), ...(p.model ? { model: p.model } : {}) },
  }));
  if (source.turns.some((t) => t.speaker === "system")) participants.push({ id: "system", name: "System", kind: "system" });
  return {
    schemaVersion: 1,
    id: source.sessionId,
    title: `${source.scenario.title ?? source.scenario.id}: ${source.condition.name}, run ${source.run}`,
    metadata: {
      condition: source.condition.name,
      run: String(source.run),
      task: source.scenario.task,
      source: { format: "orchestrator", scenario: source.scenario.id },
      incomplete: status.incomplete,
      orchestrator: {
        scenario: source.scenario.id,
        ...(source.scenario.preset ? { preset: source.scenario.preset } : {}),
        strategy: status.strategy,
        seed: source.seed,
        model: status.model,
        usage: source.usage,
        endReason: source.endReason,
        failure: status.failure,
        humanAnswers: source.humanAnswers,
        notes: source.notes,
        simulatedSeconds: source.clock,
      },
    },
    participants,
    turns: source.turns,
  };
}
