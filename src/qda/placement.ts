import { codePointIndex } from "./positions.js";
import { codePoints, type TextTurn } from "./text.js";

/**
 * Where a selection of a text source lands on the turns read from it. A selection over several
 * turns becomes one part per turn (a coding is never dropped for crossing a turn boundary, nor
 * moved to another turn); a selection of a speaker label only codes that speaker's turn.
 */

/** A part of a selection on one turn: code points from the start of the turn's text, end exclusive. */
export interface TurnPart {
  /** Index of the turn in the list given. */
  turn: number;
  start: number;
  end: number;
  /** The part is the turn's whole text. */
  whole: boolean;
}

/** Places selections on the turns of one source (code-point positions throughout). */
export class TurnPlacer {
  private readonly index: Uint32Array;
  private readonly lengths: number[];

  constructor(
    private readonly text: string,
    private readonly turns: readonly TextTurn[],
  ) {
    this.index = codePointIndex(text);
    this.lengths = turns.map((t) => codePoints(t.text));
  }

  /** Offset in turn `i`'s text of source position `at` (within the turn): line breaks count one, as in the turn. */
  private offset(i: number, at: number): number {
    const turn = this.turns[i];
    const clipped = Math.min(Math.max(at, turn.start), turn.end);
    const slice = this.text.slice(this.index[turn.start], this.index[clipped]);
    return Math.min(codePoints(slice.replace(/\r\n?/g, "\n")), this.lengths[i]);
  }

  /** The parts of [start, end) on each turn it touches (its words or its speaker label), in order. */
  place(start: number, end: number): TurnPart[] {
    const parts: TurnPart[] = [];
    this.turns.forEach((turn, i) => {
      // A turn reaches from its line start (a label belongs to its turn) to the end of its words.
      if (!(start < Math.max(turn.end, turn.lineStart + 1) && end > turn.lineStart)) return;
      let from = this.offset(i, start);
      let to = this.offset(i, end);
      // Only the label (or nothing of the words) selected: the turn is what was meant.
      if (to <= from) [from, to] = [0, this.lengths[i]];
      parts.push({ turn: i, start: from, end: to, whole: from === 0 && to === this.lengths[i] });
    });
    return parts;
  }
}
