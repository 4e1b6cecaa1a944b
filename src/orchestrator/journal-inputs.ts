import type { InputKind, JournalReplay, SessionJournal } from "./journal.js";

/**
 * A session's looks at the world outside it (model replies, answers, people's posts, real-time
 * waits, the operator's end and approvals), each at a numbered step: journaled as they are
 * made, and, while a session resumes, given back from its journal at the same steps without
 * looking. `caughtUp` runs once the journal's inputs are all given back: the session is live again.
 */
export class JournalInputs {
  private step = 0;

  constructor(
    private readonly journal: SessionJournal | undefined,
    private replay: JournalReplay | undefined,
    private readonly caughtUp: () => void,
  ) {}

  /** True while recorded inputs are given back. */
  get replaying(): boolean {
    return this.replay !== undefined;
  }

  /** The journal has nothing more to give (it had none, or all was given back). */
  settle(): void {
    if (this.replay && !this.replay.active) this.done();
  }

  private done(): void {
    this.replay = undefined;
    this.caughtUp();
  }

  /** A look that must find something: while resuming, the journal's record; else `live()`, journaled. */
  async look<T>(what: InputKind, live: () => Promise<T>, mismatch: (message: string) => Error): Promise<T> {
    const step = this.step++;
    if (this.replay) {
      const recorded = this.replay.take(step, what);
      if (!recorded) throw mismatch(`the resumed session no longer follows its journal (step ${step}: nothing recorded for ${what})`);
      if (!this.replay.active) this.done();
      return recorded.value as T;
    }
    const value = await live();
    this.journal?.append({ k: "in", step, what, value });
    return value;
  }

  /** A look that may find nothing (the posts, the operator's end): only what it found is journaled. */
  glance<T>(what: InputKind, live: () => T, nothing: T): T {
    const step = this.step++;
    if (this.replay) {
      const recorded = this.replay.take(step, what);
      if (recorded && !this.replay.active) this.done();
      return recorded ? (recorded.value as T) : nothing;
    }
    const value = live();
    if (value !== nothing && !(Array.isArray(value) && value.length === 0)) this.journal?.append({ k: "in", step, what, value });
    return value;
  }
}
