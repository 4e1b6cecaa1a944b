import { createInterface } from "node:readline/promises";
import type { Turn } from "../transcript/schema.js";
import type { Agent } from "./agent.js";

/**
 * Where human participants' words come from. The terminal implementation prompts on stdin;
 * tests and resumed runs use scripted input. `null` means the person passes.
 * Lines starting with "/" are commands the strategy interprets (e.g. "/mode focus",
 * "/facilitator", "/summary", "/to Developer ..."); everything else is a message, verbatim.
 */
export interface HumanInput {
  ask(request: { participant: Agent; prompt: string; history: readonly Turn[]; display: (turn: Turn) => string }): Promise<string | null>;
  close?(): void;
}

/** Replays recorded answers, then defers to `next` (used by --resume and tests). */
export function scriptedHuman(answers: readonly (string | null)[], next?: HumanInput): HumanInput {
  let i = 0;
  return {
    async ask(request) {
      if (i < answers.length) return answers[i++];
      if (next) return next.ask(request);
      throw new Error(`scripted human input ran out after ${answers.length} answers (asked for ${request.participant.name})`);
    },
    close: () => next?.close?.(),
  };
}

/** Prompts at the terminal (or any readable stream): an empty line passes, EOF passes for good. */
export function terminalHuman(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stderr): HumanInput {
  const rl = createInterface({ input, output, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  let ended = false;
  /** Turns already shown, so the person sees everything said since their last prompt. */
  let shown = 0;
  return {
    async ask({ participant, prompt, history, display }) {
      if (ended) return null;
      for (const turn of history.slice(shown)) output.write(`${display(turn)}\n`);
      shown = history.length;
      output.write(`${prompt}\n${participant.name}> `);
      const next = await lines.next();
      if (next.done) {
        ended = true;
        return null;
      }
      const text = next.value;
      return text.trim() === "" ? null : text;
    },
    close: () => rl.close(),
  };
}
