import type { Participant, Turn } from "../transcript/schema.js";
import type { ParticipantView } from "./scenario.js";

/**
 * What a running session tells whoever watches it live (the participant and operator pages):
 * every turn as it is stored, what a person is asked for, and the end. Private content
 * (reasoning turns, decisions, scores) is in these events; the watcher decides who sees it.
 */
export type SessionEvent =
  | {
      type: "session";
      sessionId: string;
      title: string;
      task: string;
      strategy: string;
      /** Everyone in the session (a participant's page gets no `kind` unless the scenario shows kinds). */
      participants: (Omit<Participant, "kind"> & Partial<Pick<Participant, "kind">>)[];
      /** What participants' pages may see of the design, and the title they see (no condition unless shown). */
      view?: ParticipantView & { title: string };
      /** Buttons a participant's page offers throughout (sent to participants instead of the strategy's name). */
      controls?: readonly string[];
    }
  | { type: "turn"; turn: Turn }
  | { type: "typing"; participant: string }
  /** `at`: when it was asked (ms since epoch), so that a page opened later says since when the session waits. */
  | { type: "ask"; participant: string; prompt: string; controls: readonly string[]; timeoutSeconds?: number; at?: number }
  | { type: "asked"; participant: string; answer: "answered" | "passed" | "no answer" }
  /** A model call went out (`waiting`) or came back, for an agent (none: the orchestrator's own decision); the operator's page says the session waits for it. */
  | { type: "model"; participant?: string; waiting: boolean; at?: number }
  /** `incomplete`: stopped before its end (a failure, Ctrl-C, a kill) and saved for --resume, so the pages say it may go on. */
  | { type: "end"; reason: string; incomplete?: true };

/** A live watcher of sessions; it may also pause the session and ask it to end. */
export interface SessionObserver {
  event(event: SessionEvent): void;
  /** Resolves when the session may go on (the operator paused it); checked before each model call and wait. */
  gate?(): Promise<void>;
  /** Set when the operator ended the session. */
  endRequested?(): string | undefined;
  /** When each person agreed to the study's consent text (ISO 8601), stored with the session; undefined without one. */
  consents?(): Record<string, string> | undefined;
  /** Tell `listener` of each agreement from now on (the session journals it: a late joiner's consent survives kill -9 and --resume). */
  onConsent?(listener: ((participant: string, at: string) => void) | undefined): void;
}
