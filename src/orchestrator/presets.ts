/**
 * Paper presets: `preset: <id>` in a scenario gives the strategy the published defaults and
 * prompt intentions of one paper. Values the scenario sets itself win over the preset's (and a
 * condition's overrides win over both). Each value's source, and which values are ours because
 * the paper does not state one, is documented in docs/presets.md; keep the two in step
 * (test/orchestrator/presets.test.ts checks that every value here is listed there).
 * Prompts are our wording of the paper's intention, never the paper's text.
 */
export interface Preset {
  /** What the preset reproduces, for messages and the session metadata. */
  paper: string;
  strategy: { type: string } & Record<string, unknown>;
  /** Model settings the paper states (e.g. temperature). */
  model?: { temperature?: number };
}

export const presetIds = ["yes-and", "multicolleagues", "chatcollab", "dialoglab", "llm-discussion"] as const;
export type PresetId = (typeof presetIds)[number];

export const presets: Record<PresetId, Preset> = {
  "yes-and": {
    paper: "YES AND: multi-agent ideation with confidence-based self-selection",
    strategy: {
      type: "confidence",
      threshold: 7,
      // Speaks only when confidence exceeds 7.
      thresholdRule: "above",
      // Agents that are not confident always acknowledge with "hmm".
      backchannel: { text: "hmm", probability: 1 },
      wordLimit: 30,
      summaryWordLimit: 80,
    },
  },
  "llm-discussion": {
    paper: "LLM Discussion: Enhancing the Creativity of LLMs via Discussion Framework and Role-Play (Lu et al., 2024)",
    strategy: {
      type: "rounds",
      rounds: 5,
      roleSet: "llm-discussion",
      claimRole: true,
      initiationPrompt: "Initiate a group discussion with your teammates: share your first ideas for the task from the perspective of your role.",
      discussionPrompt:
        "These are your teammates' ideas from the previous round. Build on them and be as divergent and creative as you can: add new, original ideas from your role's perspective.",
      convergencePrompt: "This is the final round. Considering the whole discussion, finalise a list of the group's most creative answers as a numbered list.",
    },
    model: { temperature: 1 },
  },
  multicolleagues: {
    paper: "Towards AI as Colleagues: Multi-Agent System Improves Structured Professional Ideation (MultiColleagues, Quan et al., 2025)",
    strategy: {
      type: "ranked",
      welcome: true,
      routeUnaddressed: true,
      mode: "explore",
      // The paper's personas answer in one or two sentences (not a word count).
      replyLength: "one or two sentences",
      randomRate: 0.2,
      compression: { after: 15, keepLast: 8, summaryWords: 150, refreshEvery: 1 },
    },
  },
  chatcollab: {
    paper: "ChatCollab: Exploring Collaboration Between Humans and AI Agents in Software Teams (Klieger et al., 2024)",
    strategy: {
      type: "autonomous",
      typingVisible: true,
      pauseSeconds: [3, 15],
      // The intentions of the experiment's logged action prompt (our wording). Waiting for requested
      // inputs is what the paper observed agents do, not something their prompt said.
      instruction:
        "You are autonomous: decide whether to act now. Do not repeat yourself: if you have already answered and nobody is waiting for your work, it is not your time to speak. Deliver the files you promised or are responsible for, and never claim to have sent something the conversation does not show.",
    },
  },
  dialoglab: {
    paper: "DialogLab: Authoring, Simulating, and Testing Dynamic Human-AI Group Conversations (Hu et al., UIST 2025)",
    strategy: {
      type: "scene",
      partyOrder: "free",
    },
  },
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Fill a raw scenario (before validation) with its preset's values: the strategy type and
 * parameters, and model settings, wherever the scenario does not set them. An unknown preset is
 * left for the schema to report (naming the field).
 */
export function applyPreset(input: unknown): unknown {
  if (!isRecord(input) || typeof input.preset !== "string" || !(presetIds as readonly string[]).includes(input.preset)) return input;
  const preset = presets[input.preset as PresetId];
  // A strategy or model that is not an object is left as it is, for the schema to report.
  const strategy = input.strategy === undefined ? preset.strategy : isRecord(input.strategy) ? { ...preset.strategy, ...input.strategy } : input.strategy;
  const model = input.model === undefined ? preset.model : isRecord(input.model) ? { ...(preset.model ?? {}), ...input.model } : input.model;
  return { ...input, strategy, ...(model !== undefined ? { model } : {}) };
}
