import type { ParticipantSpec, Scenario, ConditionSpec } from "./scenario.js";
import { participantId, uniqueId } from "../transcript/ids.js";

/** A scenario participant with its id resolved. */
export interface Agent extends ParticipantSpec {
  id: string;
}

export function resolveAgents(scenario: Scenario): Agent[] {
  const taken = new Set<string>(["system"]);
  return scenario.participants.map((p) => ({ ...p, id: uniqueId(p.id ?? participantId(p.name), taken) }));
}

/** A participant by id or (case-insensitive) name, "@" prefix allowed; undefined when unknown. */
export function findAgent(agents: readonly Agent[], nameOrId: string): Agent | undefined {
  const key = nameOrId.trim().toLowerCase().replace(/^@/, "");
  return agents.find((p) => p.id === key || p.name.toLowerCase() === key);
}

/** "Name (Role)" as agents see each other in transcripts. */
export function displayName(agent: Pick<Agent, "name" | "role">): string {
  return agent.role && agent.role !== agent.name ? `${agent.name} (${agent.role})` : agent.name;
}

/**
 * The system prompt of an AI (or simulated human) participant: who it is, the task, the
 * team's shared instructions plus this condition's instruction, and who else is present.
 */
export function systemPrompt(scenario: Scenario, condition: ConditionSpec, agent: Agent, everyone: readonly Agent[]): string {
  const lines: string[] = [];
  lines.push(`You are ${displayName(agent)} in a group conversation.`);
  if (agent.kind === "simulated-human") {
    lines.push("You are role-playing a human participant. Behave like a person would: brief, natural messages.");
    if (agent.playbook) lines.push(`Your playbook:\n${agent.playbook}`);
  }
  if (agent.persona) lines.push(agent.persona);
  lines.push(`Task: ${scenario.task}`);
  const shared = [scenario.sharedInstructions, condition.instruction].filter((s) => s && s.trim()).join("\n");
  if (shared) lines.push(`Instructions for everyone:\n${shared}`);
  const others = everyone.filter((p) => p.id !== agent.id).map((p) => `- ${displayName(p)}${p.kind === "human" ? " [human]" : ""}`);
  if (others.length) lines.push(`Other participants:\n${others.join("\n")}`);
  lines.push("Write only your own message: no name prefix, no stage directions, no messages for others.");
  if (agent.wordLimit) lines.push(`Keep every message under ${agent.wordLimit} words.`);
  return lines.join("\n\n");
}

/**
 * Models often prefix their reply with their own name or role ("CEO: ...", "**Ana (CEO):**",
 * "[Ana]:"). Remove exactly such a prefix (case-insensitive, once); the raw reply is kept in
 * turn metadata whenever anything was removed. Other names are left alone: an agent may
 * address someone ("Ben: what do you think?").
 */
export function stripOwnName(text: string, agent: Pick<Agent, "name" | "role">): string {
  const trimmed = text.trim();
  const labels = [displayName(agent), agent.name, ...(agent.role ? [agent.role, `${agent.role} ${agent.name}`, `${agent.name}, ${agent.role}`] : [])]
    .sort((a, b) => b.length - a.length)
    .map((label) => label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  // Optional markdown bold or brackets around the label, the colon inside or outside them.
  const prefix = new RegExp(`^(?:\\*\\*|__|\\[)?\\s*(?:${labels.join("|")})\\s*(?::\\s*(?:\\*\\*|__|\\])?|(?:\\*\\*|__|\\])\\s*:)\\s*`, "i");
  const stripped = trimmed.replace(prefix, "");
  return stripped === trimmed || stripped.trim() === "" ? trimmed : stripped.trim();
}
