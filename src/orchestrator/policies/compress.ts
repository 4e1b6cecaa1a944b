import { z } from "zod";
import type { Turn } from "../../transcript/schema.js";
import type { Conversation } from "../conversation.js";

/**
 * History compression for long discussions (ranked strategy). Beyond `after` message turns,
 * the last `keepLast` turns stay verbatim, human and facilitator turns always stay verbatim,
 * and older agent turns are folded into a rolling summary of at most `summaryWords` words
 * (with key phrases). By default the summary is refreshed whenever a turn leaves the verbatim
 * window, so exactly the last `keepLast` turns are verbatim; `refreshEvery: N` trades that for
 * one summary request every N turns (turns not yet summarised then stay verbatim, so nothing
 * is ever hidden from the agents).
 */
export const compressionSchema = z
  .object({
    after: z.number().int().positive().default(15),
    keepLast: z.number().int().positive().default(8),
    summaryWords: z.number().int().positive().default(150),
    refreshEvery: z.number().int().positive().default(1),
  })
  .strict()
  // The verbatim window must be smaller than the history that triggers compression, or there
  // is nothing to fold (and no `keepLast`-th message to start the window at).
  .refine((c) => c.keepLast < c.after, { message: "keepLast must be smaller than after", path: ["keepLast"] });

export type CompressionParams = z.infer<typeof compressionSchema>;

export interface RollingSummary {
  /** Index (turn.index) of the last turn folded into the summary. */
  throughIndex: number;
  summary: string;
  keyPhrases: string[];
}

const summaryReplySchema = z.object({ summary: z.string(), keyPhrases: z.array(z.string()).max(10) });

export class HistoryCompressor {
  private current: RollingSummary | undefined;
  readonly history: RollingSummary[] = [];

  constructor(
    private readonly params: CompressionParams,
    private readonly alwaysVerbatim: (turn: Turn) => boolean,
  ) {}

  /** The history text agents see now, refreshing the rolling summary when due. */
  async render(conversation: Conversation): Promise<{ text: string; compression?: { summarisedThrough: number; verbatimTurns: number } }> {
    const visible = conversation.visible();
    const messages = visible.filter((t) => t.type !== "system");
    if (messages.length <= this.params.after) return { text: conversation.transcript(visible) };
    // Validation keeps keepLast < after; this guard also covers sessions resumed from older files.
    if (this.params.keepLast >= messages.length) return { text: conversation.transcript(visible) };
    const windowStart = messages[messages.length - this.params.keepLast].index;
    const foldable = visible.filter((t) => t.index < windowStart && !this.alwaysVerbatim(t) && t.type !== "system");
    const unsummarised = foldable.filter((t) => t.index > (this.current?.throughIndex ?? -1));
    if (unsummarised.length >= this.params.refreshEvery || (!this.current && unsummarised.length > 0)) {
      await this.refresh(conversation, unsummarised);
    }
    const through = this.current?.throughIndex ?? -1;
    const shown = visible.filter((t) => !(t.index <= through && foldable.includes(t)));
    const header = this.current ? `[Summary of the earlier discussion: ${this.current.summary}]\n[Key phrases: ${this.current.keyPhrases.join("; ")}]\n` : "";
    return { text: header + conversation.transcript(shown), compression: { summarisedThrough: through, verbatimTurns: shown.length } };
  }

  private async refresh(conversation: Conversation, turns: readonly Turn[]): Promise<void> {
    const previous = this.current ? `Summary so far: ${this.current.summary}\n\n` : "";
    const { value } = await conversation.decide(undefined, {
      name: "summary",
      systemText: "You keep a rolling summary of a group discussion for its participants.",
      historyText: `${previous}New messages to fold in:\n${conversation.transcript(turns)}`,
      instruction: `Write an updated summary in at most ${this.params.summaryWords} words, keeping every distinct idea, and up to 5 key phrases. Answer as JSON {"summary", "keyPhrases"}.`,
      jsonSchema: {
        type: "object",
        properties: { summary: { type: "string" }, keyPhrases: { type: "array", items: { type: "string" } } },
        required: ["summary", "keyPhrases"],
        additionalProperties: false,
      },
      schema: summaryReplySchema,
      purpose: "compress",
    });
    // Bound the length even if the model ignored the limit.
    const words = value.summary.split(/\s+/).filter(Boolean);
    const summary = words.length > this.params.summaryWords ? words.slice(0, this.params.summaryWords).join(" ") + " ..." : value.summary;
    this.current = { throughIndex: turns[turns.length - 1].index, summary, keyPhrases: value.keyPhrases.slice(0, 5) };
    this.history.push(this.current);
  }
}
