/**
 * Concept extraction throughput: compromise's default `nlp(text).nouns()` (the baseline the
 * issue measures) against Colloquy's extractor (compromise asked once per distinct word, then
 * left-context rules; src/analysis/concepts/tagger.ts), on the same generated conversational
 * corpus, in MB/s and turns/s, with the concepts both find (agreement) so quality is visible.
 *
 *   npx tsx bench/concepts.ts [turns]
 *
 * The fast figure includes its cold start (compromise classifying every new word).
 */
import { baselineConcepts, compromiseNouns } from "../src/analysis/concepts/baseline.js";
import { createConceptExtractor } from "../src/analysis/concepts/extract.js";
import { loadavg } from "node:os";

const TURNS = Number(process.argv[2] ?? 20000);
const BASELINE_TURNS = Math.min(TURNS, 800); // the baseline is slow; time it on a prefix

// A conversational corpus: fillers, backchannels, questions, noun compounds, plural/possessive
// forms and noun-or-verb words, from a seeded generator so every run measures the same text.
const nouns = (
  "garden robot budget app panel kid sister council lane machine bin museum bus podcast teacher " +
  "student school library park bike tree flower river bridge market farmer kitchen recipe menu restaurant " +
  "city street car train station ticket price customer product feature design plan idea prototype sketch " +
  "poster video game toy phone screen battery charger camera photo story book chapter song music festival " +
  "neighbour family child parent dog cat bird water energy sun roof window door wall floor table chair " +
  "cup coffee tea breakfast lunch dinner team project meeting deadline email message website user account"
).split(" ");
const plural = (n: string) => (n === "child" ? "children" : /(s|sh|ch|x)$/.test(n) ? `${n}es` : /[^aeiou]y$/.test(n) ? `${n.slice(0, -1)}ies` : `${n}s`);
const adjectives = "new old big small green cheap local shared public smart quiet bright simple".split(" ");
const verbs = "could use|might replace|should include|would love|needs|helps|reminds me of|works with|improves|could water|might design|could plan".split("|");
const fillers = ["um,", "well,", "yeah,", "I mean,", "so,", "okay,", "hmm,", "", "", ""];
const backchannels = ["yeah", "mm-hmm", "right, right", "okay", "sure, totally", "haha yes"];
let seed = 42;
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
const np = () => {
  const r = rnd();
  const n = pick(nouns);
  if (r < 0.2) return `the ${pick(nouns)} ${n}`;
  if (r < 0.4) return `${pick(["our", "the", "some", "two"])} ${plural(n)}`;
  if (r < 0.55) return `the ${pick(adjectives)} ${n}`;
  if (r < 0.65) return `my ${pick(nouns)}'s ${n}`;
  return `a ${n}`;
};
const sentence = () => {
  const r = rnd();
  if (r < 0.15) return `${pick(fillers)} what if ${np()} ${pick(verbs)} ${np()}?`;
  if (r < 0.3) return `${pick(fillers)} I think we ${pick(["plan", "design", "need", "want"])} ${np()} for ${np()}.`;
  return `${pick(fillers)} ${np()} ${pick(verbs)} ${np()}${rnd() < 0.3 ? ` and ${np()}` : ""}.`.trim();
};
const corpus: string[] = [];
for (let i = 0; i < TURNS; i++) {
  corpus.push(rnd() < 0.15 ? pick(backchannels) : Array.from({ length: 1 + Math.floor(rnd() * 3) }, sentence).join(" "));
}
const bytes = (xs: readonly string[]) => xs.reduce((s, t) => s + Buffer.byteLength(t), 0);

function time<T>(fn: () => T): { value: T; seconds: number } {
  const t0 = performance.now();
  const value = fn();
  return { value, seconds: (performance.now() - t0) / 1000 };
}

const prefix = corpus.slice(0, BASELINE_TURNS);
compromiseNouns("warm up the compromise model once.");
const base = time(() => prefix.map(compromiseNouns));
const baseConcepts = time(() => prefix.map(baselineConcepts));
const extractor = createConceptExtractor();
const fast = time(() => {
  extractor.prepare(corpus);
  return corpus.map((t) => extractor.extract(t));
});
// Second pass over the same text: the per-word cache is warm (the steady state on a large corpus).
const warm = time(() => corpus.map((t) => extractor.extract(t)));

// Agreement on the prefix: multiset overlap per turn, as Dice = 2|A∩B| / (|A| + |B|) in total.
let both = 0;
let onlyBase = 0;
let onlyFast = 0;
const diffs: string[] = [];
prefix.forEach((turn, i) => {
  const a = new Map<string, number>();
  for (const c of baseConcepts.value[i]) a.set(c, (a.get(c) ?? 0) + 1);
  const fastList = fast.value[i];
  let shared = 0;
  for (const c of fastList) {
    const k = a.get(c) ?? 0;
    if (k > 0) {
      shared++;
      a.set(c, k - 1);
    }
  }
  both += shared;
  onlyBase += baseConcepts.value[i].length - shared;
  onlyFast += fastList.length - shared;
  if (shared !== fastList.length || shared !== baseConcepts.value[i].length) {
    if (diffs.length < 5) diffs.push(`  "${turn}"\n    compromise: ${JSON.stringify(baseConcepts.value[i])}\n    colloquy:   ${JSON.stringify(fastList)}`);
  }
});

const row = (name: string, turns: number, b: number, s: number) =>
  `${name.padEnd(44)} ${(b / 1e6 / s).toFixed(3).padStart(8)} MB/s ${(turns / s).toFixed(0).padStart(9)} turns/s   (${turns} turns, ${(b / 1e6).toFixed(2)} MB, ${s.toFixed(2)} s)`;
console.log(
  `Concept extraction on a generated conversational corpus (one core, ${process.version}, load average ${loadavg()[0].toFixed(1)} on 2 cores: figures scale down with contention, the ratio much less)`,
);
console.log(row("baseline: compromise nlp(text).nouns()", prefix.length, bytes(prefix), base.seconds));
console.log(row("baseline nouns() reduced to concepts", prefix.length, bytes(prefix), baseConcepts.seconds));
console.log(row("colloquy extractor (cold cache included)", corpus.length, bytes(corpus), fast.seconds));
console.log(row("colloquy extractor (warm cache)", corpus.length, bytes(corpus), warm.seconds));
const speedup = bytes(corpus) / fast.seconds / (bytes(prefix) / base.seconds);
const mbps = bytes(corpus) / 1e6 / fast.seconds;
console.log(
  `speed-up vs nouns() (cold cache included): ${speedup.toFixed(1)}x; target >= 1 MB/s: ${mbps >= 1 ? "met" : "not met"} at this load` +
    (mbps < 1
      ? ` (the baseline runs at ${((bytes(prefix) / 1e6 / base.seconds / 0.1) * 100).toFixed(0)}% of its idle-machine 0.1 MB/s; at the same speed-up an idle core would give ~${(speedup * 0.1).toFixed(1)} MB/s)`
      : ""),
);
const dice = (2 * both) / (2 * both + onlyBase + onlyFast);
console.log(
  `agreement on the first ${prefix.length} turns: ${both} concepts found by both, ${onlyBase} only by compromise, ${onlyFast} only by colloquy; ` +
    `Dice ${(dice * 100).toFixed(1)}%, recall ${((100 * both) / (both + onlyBase)).toFixed(1)}%, precision ${((100 * both) / (both + onlyFast)).toFixed(1)}%`,
);
if (diffs.length > 0) console.log(`examples of disagreement:\n${diffs.join("\n")}`);
