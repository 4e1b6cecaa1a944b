import { fnv1a, FNV_PRIME } from "../../util/hash.js";
import type { Session } from "../../transcript/schema.js";

/**
 * Features of one turn for the learned coder: TF-IDF over word 1-2-grams and character 2-5-grams of
 * whitespace-separated tokens, punctuation included (scikit-learn's `char_wb`), the textbook
 * baseline for coding dialogue acts, plus a few features of the turn's place in the conversation
 * (speaker kind, whether the turn asks, whether the previous turn asked, whether the speaker
 * changed), which only a second model sees (`vectorise`'s `context`; model.ts averages it with the
 * text model). Strings are hashed into a fixed space (the "hashing trick"), so no string is kept
 * per distinct term and memory is bounded; the hashed features seen in training are then numbered
 * densely (`fitIdf`'s vocabulary), and vectors and models use those numbers.
 */

/** 2^18 buckets per block: collisions are rare at the vocabulary sizes of a coded study. */
export const FEATURE_BITS = 18;
const BUCKETS = 1 << FEATURE_BITS;
const MASK = BUCKETS - 1;
/** Blocks (normalised separately, as in a FeatureUnion): words, characters, context. */
export const BLOCKS = 3;
/** Width of the concatenated feature space. */
const FEATURE_SPACE = BLOCKS * BUCKETS;

/** The hashed terms of one turn: per block, sorted buckets and their counts. */
export interface TurnTerms {
  blocks: { bucket: number[]; count: number[] }[];
}

const wordPattern = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

function words(text: string): string[] {
  return (text.toLowerCase().replace(/’/g, "'").match(wordPattern) ?? []) as string[];
}

const CHAR_SEED = fnv1a("c ");

/**
 * Hashes of one block, collected in a reused buffer: turning a turn into features happens 100,000
 * times in a large study, and per-turn arrays made the garbage collector the largest cost.
 */
class HashBuffer {
  data = new Int32Array(4096);
  length = 0;
  push(h: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = h;
  }
  /** The hashes sorted, as a view of the buffer (valid until the next push); empties the buffer. */
  sorted(): Int32Array {
    const sorted = this.data.subarray(0, this.length).sort();
    this.length = 0;
    return sorted;
  }
  /** Sorted unique buckets with their counts; empties the buffer. */
  take(): { bucket: number[]; count: number[] } {
    // Plain arrays: a turn's few hundred numbers are cheaper to allocate than typed arrays. Made
    // at their size (counted first) rather than grown by push, which copied them several times.
    const sorted = this.sorted();
    let unique = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) unique++;
    const bucket = new Array<number>(unique).fill(0);
    const count = new Array<number>(unique).fill(0);
    let u = -1;
    for (let i = 0; i < sorted.length; i++) {
      if (i === 0 || sorted[i] !== sorted[i - 1]) bucket[++u] = sorted[i];
      count[u]++;
    }
    return { bucket, count };
  }
}

const wordHashes = new HashBuffer();
const charHashes = new HashBuffer();
const contextHashes = new HashBuffer();
const WORD_SEED = fnv1a("w ");
const BIGRAM_SEED = fnv1a("b ");
const SPACE = " ".charCodeAt(0);

/**
 * Python's whitespace (str.isspace, what `str.split()` splits on), which is not JavaScript's `\s`:
 * Python counts the separators U+001C-U+001F and NEL (U+0085) as spaces, JavaScript counts the
 * byte-order mark U+FEFF, which Python keeps inside a token.
 */
const PYTHON_WHITESPACE = /[\t-\r\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/** " token " as code points, reused from token to token. */
let padded = new Int32Array(64);

/**
 * Character 2-5-grams of every whitespace-separated token of the lowercased text, as scikit-learn's
 * `char_wb` analyser makes them (the baseline the issue names): each token is padded with one space
 * on each side and keeps its punctuation ("why?" gives "y? " and "? "), which marks questions and
 * exclamations. Code points, not UTF-16 units, as Python counts characters. Hashed incrementally (no
 * substring is built).
 */
function charGrams(lowercased: string): void {
  for (const token of lowercased.split(PYTHON_WHITESPACE)) {
    if (token === "") continue;
    let n = 1;
    if (padded.length < token.length + 2) padded = new Int32Array(2 * token.length + 2);
    padded[0] = SPACE;
    for (let j = 0; j < token.length; j++) {
      const point = token.codePointAt(j)!;
      padded[n++] = point;
      if (point > 0xffff) j++;
    }
    padded[n++] = SPACE;
    gramsOfPadded(n);
  }
}

/** Every 2-5-gram that fits in `padded[0..length)`. */
function gramsOfPadded(length: number): void {
  for (let i = 0; i + 2 <= length; i++) {
    let h = CHAR_SEED;
    for (let j = i; j < length && j < i + 5; j++) {
      h = Math.imul(h ^ padded[j], FNV_PRIME);
      if (j > i) charHashes.push((h >>> 0) & MASK);
    }
  }
}

/** The terms of turn `index` of `session`. */
export function turnTerms(session: Session, index: number): TurnTerms {
  hashTurn(session, index);
  return { blocks: [wordHashes.take(), charHashes.take(), contextHashes.take()] };
}

/** The hashes of turn `index` of `session`, pushed into the blocks' buffers. */
function hashTurn(session: Session, index: number): void {
  const turn = session.turns[index];
  const tokens = words(turn.text);
  tokens.forEach((w, i) => {
    wordHashes.push((fnv1a(w, WORD_SEED) >>> 0) & MASK);
    if (i > 0) wordHashes.push((fnv1a(w, fnv1a(" ", fnv1a(tokens[i - 1], BIGRAM_SEED))) >>> 0) & MASK);
  });
  charGrams(turn.text.toLowerCase());
  const kindOf = (speaker: string) => session.participants.find((p) => p.id === speaker)?.kind ?? "human";
  const previous = index > 0 ? session.turns[index - 1] : undefined;
  for (const term of [
    `kind ${kindOf(turn.speaker)}`,
    `asks ${turn.text.includes("?")}`,
    `first ${tokens[0] ?? ""}`,
    `prev-asks ${previous ? previous.text.includes("?") : "none"}`,
    `prev-kind ${previous ? kindOf(previous.speaker) : "none"}`,
    `same-speaker ${previous?.speaker === turn.speaker}`,
  ]) {
    contextHashes.push((fnv1a(term) >>> 0) & MASK);
  }
}

/** Index of the block of context features (speaker kind, neighbours) in `TurnTerms.blocks`. */
const CONTEXT_BLOCK = 2;

/**
 * The training turns' vocabulary: every feature seen in training gets a dense id, numbered in
 * feature order (so a vector's ids stay sorted and the context block's ids come last), with its
 * smoothed inverse document frequency. Vectors and models work on these ids: the weights, the
 * models' columns and the idf are then small arrays indexed by id, where tables over the whole
 * hashed space cost a cache miss per n-gram when 100,000 turns are coded.
 */
export interface Idf {
  documents: number;
  /** Feature (block x BUCKETS + bucket) -> id, -1 for features never seen in training. */
  id: Int32Array;
  /** weight[id]: ln((1 + n) / (1 + df)) + 1. */
  weight: Float64Array;
  /** The first id of the context block (ids from here on are context features). */
  contextStart: number;
}

export function fitIdf(terms: readonly TurnTerms[]): Idf {
  const df = new Int32Array(FEATURE_SPACE);
  for (const t of terms) t.blocks.forEach((block, b) => block.bucket.forEach((h) => df[b * BUCKETS + h]++));
  const n = terms.length;
  const id = new Int32Array(FEATURE_SPACE).fill(-1);
  const weights: number[] = [];
  let contextStart = -1;
  for (let i = 0; i < FEATURE_SPACE; i++) {
    if (i === CONTEXT_BLOCK * BUCKETS) contextStart = weights.length;
    if (df[i] === 0) continue;
    id[i] = weights.length;
    weights.push(Math.log((1 + n) / (1 + df[i])) + 1);
  }
  return { documents: n, id, weight: Float64Array.from(weights), contextStart };
}

/** A sparse vector over the ids of an `Idf`'s vocabulary: parallel arrays of ids (ascending) and values. */
export interface SparseVector {
  index: number[];
  value: number[];
}

/**
 * Sublinear TF (1 + ln tf) x smoothed IDF (ln((1 + n) / (1 + df)) + 1), as scikit-learn's
 * TfidfVectorizer(sublinear_tf=True), each block L2-normalised. Terms never seen in training are
 * dropped (they have no id, and their weights would be 0 anyway). Without `context`, the context
 * block is left out.
 */
export function vectorise(terms: TurnTerms, idf: Idf, context = true): SparseVector {
  const index: number[] = [];
  const value: number[] = [];
  let n = 0;
  terms.blocks.forEach((block, b) => {
    if (b === CONTEXT_BLOCK && !context) return;
    const start = n;
    let norm = 0;
    for (let i = 0; i < block.bucket.length; i++) {
      const id = idf.id[b * BUCKETS + block.bucket[i]];
      if (id < 0) continue;
      // Most terms occur once in a turn, and 1 + ln 1 is 1: the logarithm only for the others.
      const count = block.count[i];
      const v = (count === 1 ? 1 : 1 + Math.log(count)) * idf.weight[id];
      index.push(id);
      value.push(v);
      n++;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = start; i < n; i++) value[i] /= norm;
  });
  return { index, value };
}

/**
 * The vector without its context block: the same numbers as `vectorise(terms, idf, false)` (the
 * blocks are normalised apart, and the context block comes last, so it is a prefix), without
 * turning the terms into features a second time.
 */
export function withoutContext(x: SparseVector, idf: Idf): SparseVector {
  let n = x.index.length;
  while (n > 0 && x.index[n - 1] >= idf.contextStart) n--;
  return { index: x.index.slice(0, n), value: x.value.slice(0, n) };
}

/** A sparse vector in buffers reused from call to call: its entries are [0, length) of `index` and `value`. */
export interface BufferedVector {
  index: Int32Array;
  value: Float64Array;
  length: number;
}

const buffered: BufferedVector = { index: new Int32Array(1024), value: new Float64Array(1024), length: 0 };

/**
 * `vectorise(turnTerms(session, index), idf, context)`, the same numbers, written into buffers
 * reused from turn to turn (valid until the next call) rather than into new arrays: what coding
 * 100,000 turns does. The per-turn arrays were garbage at once, but V8 had seen the same code's
 * arrays live on in training (the training turns' terms and vectors) and made them in the old
 * space, where 100,000 turns of them piled up until a full collection: predicting every turn of
 * the benchmark's study took 6.0 s of CPU that way against 3.7 s with that V8 heuristic off.
 * It repeats `vectorise`'s arithmetic rather than sharing a block loop with it: tried, the shared
 * loop saw plain arrays in training and typed arrays here, and coding 100,000 turns was 10-15%
 * slower (a test checks the two give the same numbers, bit for bit).
 */
export function turnVector(session: Session, index: number, idf: Idf, context = true): BufferedVector {
  hashTurn(session, index);
  const blocks = [wordHashes.sorted(), charHashes.sorted(), contextHashes.sorted()];
  let n = 0;
  for (let b = 0; b < BLOCKS; b++) {
    const sorted = blocks[b];
    if (b === CONTEXT_BLOCK && !context) continue;
    if (buffered.index.length < n + sorted.length) {
      const size = 2 * (n + sorted.length);
      const [index, value] = [new Int32Array(size), new Float64Array(size)];
      index.set(buffered.index.subarray(0, n));
      value.set(buffered.value.subarray(0, n));
      [buffered.index, buffered.value] = [index, value];
    }
    const { index: ids, value } = buffered;
    const start = n;
    let norm = 0;
    // Runs of equal hashes are a bucket and its count, in the bucket order of `take`.
    for (let i = 0; i < sorted.length;) {
      let j = i + 1;
      while (j < sorted.length && sorted[j] === sorted[i]) j++;
      const count = j - i;
      const id = idf.id[b * BUCKETS + sorted[i]];
      i = j;
      if (id < 0) continue;
      const v = (count === 1 ? 1 : 1 + Math.log(count)) * idf.weight[id];
      ids[n] = id;
      value[n] = v;
      n++;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = start; i < n; i++) value[i] /= norm;
  }
  buffered.length = n;
  return buffered;
}
