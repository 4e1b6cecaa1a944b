import type { Session, Turn } from "../../transcript/schema.js";
import { turnFingerprint } from "../../transcript/fingerprint.js";
import { provenance } from "../../util/provenance.js";
import type { Codebook } from "../codebook/schema.js";
import type { CodeRecord } from "../records.js";

/**
 * The coding desk behind `colloquy annotate`: the list of turns one person codes (or adjudicates),
 * the answers given so far, and undo. It knows nothing of HTTP; the server (server.ts) turns
 * requests into calls here, and the writes go through `DeskStore` (the study's code store, under
 * the writer lock), so every answer is on disk before the page moves on.
 */

export type NominalCodebook = Extract<Codebook, { kind: "nominal" }>;

/** One turn to code, in the order the page shows them. */
export interface DeskItem {
  session: Session;
  turn: Turn;
  /** turns[position] === turn */
  position: number;
}

/**
 * code: one person codes blind (`human:<name>`); adjudicate: a person decides between coders who
 * disagree, stored as `human:adjudicated` with who decided.
 */
export type DeskMode = { kind: "code"; coder: string } | { kind: "adjudicate"; decider: string; coders: readonly string[] };

/** Where answers go: append a record; remove one exact record again (undo). */
export interface DeskStore {
  append(record: CodeRecord): Promise<void>;
  remove(record: CodeRecord): Promise<void>;
}

export const ADJUDICATED_CODER = "human:adjudicated";
const VIA = "colloquy annotate";

/**
 * Keys typed to pick a category: 1-9, 0, then letters (Bales has 12 categories: 1-0, q, w).
 * U (undo) and N (note) are left out; categories past the list are chosen by click or Tab.
 */
export const CATEGORY_KEYS = "1234567890qwertyiopasdfghjkl".split("");

const key = (session: string, turn: string) => `${session}\u0000${turn}`;

export interface DeskOptions {
  codebook: NominalCodebook;
  mode: DeskMode;
  items: readonly DeskItem[];
  /** The current records of the coder the desk writes (human:<name> or human:adjudicated). */
  existing: readonly CodeRecord[];
  /** Adjudication: the current records of each coder compared (by coder id). */
  compared?: ReadonlyMap<string, readonly CodeRecord[]>;
  store: DeskStore;
  /** Turns shown before and after the coded one. */
  window?: { before: number; after: number };
}

/** What the page shows of one turn of the context. */
export interface ContextLine {
  speaker: string;
  kind: string;
  type: string;
  text: string;
  target: boolean;
}

export interface ItemView {
  index: number;
  total: number;
  session: string;
  turn: string;
  context: ContextLine[];
  /** This coder's answer, when given. */
  answer: { codes: string[]; note: string } | null;
  /** Adjudication only: what each compared coder gave. Never filled when coding (blind). */
  compared: { coder: string; codes: string[]; note: string }[];
}

export class DeskError extends Error {}

export class Desk {
  readonly codebook: NominalCodebook;
  readonly mode: DeskMode;
  readonly items: readonly DeskItem[];
  readonly writer: string;
  private readonly answers = new Map<string, CodeRecord>();
  private readonly history = new Map<string, CodeRecord[]>();
  private readonly undoStack: { index: number; record: CodeRecord }[] = [];
  private readonly store: DeskStore;
  private readonly compared: ReadonlyMap<string, readonly CodeRecord[]>;
  private readonly window: { before: number; after: number };

  constructor(options: DeskOptions) {
    this.codebook = options.codebook;
    this.mode = options.mode;
    this.items = options.items;
    this.writer = options.mode.kind === "code" ? options.mode.coder : ADJUDICATED_CODER;
    this.store = options.store;
    this.compared = options.compared ?? new Map();
    this.window = options.window ?? { before: 3, after: 1 };
    // A record counts only while its turn still reads as it did when coded (fingerprint).
    const wanted = new Map(this.items.map((item) => [key(item.session.id, item.turn.id), turnFingerprint(item.turn)]));
    for (const record of options.existing) {
      const fingerprint = wanted.get(key(record.session, record.turn));
      if (fingerprint === undefined || (record.fingerprint !== undefined && record.fingerprint !== fingerprint)) continue;
      this.answers.set(key(record.session, record.turn), record);
    }
  }

  get done(): number {
    return this.answers.size;
  }

  /** The first turn without an answer (where a reopened page resumes), or the last turn when all are done. */
  firstOpen(): number {
    const open = this.items.findIndex((item) => !this.answers.has(key(item.session.id, item.turn.id)));
    return open >= 0 ? open : Math.max(0, this.items.length - 1);
  }

  private item(index: number): DeskItem {
    const item = Number.isInteger(index) ? this.items[index] : undefined;
    if (!item) throw new DeskError(`no turn number ${index} (there are ${this.items.length})`);
    return item;
  }

  view(index: number): ItemView {
    const { session, turn, position } = this.item(index);
    const names = new Map(session.participants.map((p) => [p.id, p]));
    const from = Math.max(0, position - this.window.before);
    const to = Math.min(session.turns.length - 1, position + this.window.after);
    const context = session.turns.slice(from, to + 1).map((t, i) => ({
      speaker: names.get(t.speaker)?.name ?? t.speaker,
      kind: names.get(t.speaker)?.kind ?? "unknown",
      type: t.type,
      text: t.text,
      target: from + i === position,
    }));
    const answer = this.answers.get(key(session.id, turn.id));
    const compared =
      this.mode.kind === "adjudicate"
        ? this.mode.coders.map((coder) => {
            const record = this.compared.get(coder)?.find((r) => r.session === session.id && r.turn === turn.id);
            return { coder, codes: record?.codes ?? [], note: noteOf(record) };
          })
        : [];
    return {
      index,
      total: this.items.length,
      session: session.id,
      turn: turn.id,
      context,
      answer: answer ? { codes: answer.codes ?? [], note: noteOf(answer) } : null,
      compared,
    };
  }

  /** Check the codes against the codebook: known ids, one unless the codebook allows several. */
  private checkCodes(codes: readonly string[]): string[] {
    const known = new Set(this.codebook.categories.map((c) => c.id));
    const unknown = codes.filter((c) => !known.has(c));
    if (unknown.length > 0) throw new DeskError(`unknown categor${unknown.length > 1 ? "ies" : "y"} ${unknown.join(", ")} for codebook ${this.codebook.id}`);
    const unique = [...new Set(codes)];
    if (unique.length === 0) throw new DeskError("choose a category");
    if (!this.codebook.multiple && unique.length > 1) throw new DeskError(`codebook ${this.codebook.id} takes one category per turn`);
    return unique;
  }

  /** Save an answer now (the store writes it before this resolves). */
  async answer(index: number, codes: readonly string[], note = ""): Promise<ItemView> {
    const { session, turn } = this.item(index);
    const chosen = this.checkCodes(codes);
    const details: Record<string, unknown> = { via: VIA };
    if (note.trim() !== "") details.note = note;
    if (this.mode.kind === "adjudicate") {
      details.decidedBy = this.mode.decider;
      details.between = Object.fromEntries(this.view(index).compared.map((c) => [c.coder, c.codes]));
    }
    const record: CodeRecord = {
      session: session.id,
      turn: turn.id,
      fingerprint: turnFingerprint(turn),
      codebook: this.codebook.id,
      codebookVersion: this.codebook.version,
      coder: this.writer,
      codes: chosen,
      provenance: provenance(details),
      createdAt: new Date().toISOString(),
    };
    await this.store.append(record);
    const k = key(session.id, turn.id);
    const previous = this.answers.get(k);
    if (previous) this.history.set(k, [...(this.history.get(k) ?? []), previous]);
    this.answers.set(k, record);
    this.undoStack.push({ index, record });
    return this.view(index);
  }

  /** Take back the last answer given in this sitting; the turn shows its earlier answer, if any. */
  async undo(): Promise<ItemView | null> {
    const last = this.undoStack.pop();
    if (!last) return null;
    await this.store.remove(last.record);
    const k = key(last.record.session, last.record.turn);
    const earlier = this.history.get(k)?.pop();
    if (earlier) this.answers.set(k, earlier);
    else this.answers.delete(k);
    return this.view(last.index);
  }

  get canUndo(): boolean {
    return this.undoStack.length > 0;
  }
}

function noteOf(record: CodeRecord | undefined): string {
  const note = record?.provenance.note;
  return typeof note === "string" ? note : "";
}

/**
 * The turns two or more coders coded differently (each coded it, and their sets of codes differ),
 * in item order: what adjudication shows.
 */
export function disagreements(items: readonly DeskItem[], compared: ReadonlyMap<string, readonly CodeRecord[]>): DeskItem[] {
  const byCoder = [...compared.values()].map((records) => new Map(records.map((r) => [key(r.session, r.turn), [...(r.codes ?? [])].sort().join("|")])));
  return items.filter((item) => {
    const k = key(item.session.id, item.turn.id);
    const given = byCoder.map((codes) => codes.get(k));
    if (given.some((g) => g === undefined)) return false;
    return new Set(given).size > 1;
  });
}
