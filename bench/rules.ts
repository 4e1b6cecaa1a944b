/**
 * Throughput of the offline rule coder (one core): codes the hand-coded evaluation turns
 * (fixtures/coding/bales-gold.csv) with bales-ipa and pragmatic-style, many passes, and prints
 * turns/s next to the 5,000 turns/s target. "cold" clears the per-text cache before every pass
 * (every turn is analysed from scratch, as in a study of distinct turns); "warm" keeps it.
 *
 *   npx tsx bench/rules.ts
 */
import { readFileSync } from "node:fs";
import Papa from "papaparse";
import { loadCodebook } from "../src/coding/codebook/load.js";
import { codeTurnWithRules } from "../src/coding/rules/index.js";
import { clearTextCache } from "../src/coding/rules/text.js";
import type { Session } from "../src/transcript/schema.js";

const TARGET = 5_000;
const rows = Papa.parse<Record<string, string>>(readFileSync(new URL("../fixtures/coding/bales-gold.csv", import.meta.url), "utf8"), {
  header: true,
  skipEmptyLines: true,
}).data;
const session: Session = {
  schemaVersion: 1,
  id: "bench",
  metadata: {},
  participants: [{ id: "p", name: "p", kind: "human" }],
  turns: rows.map((r, index) => ({ id: `t${index}`, index, speaker: "p", text: r.text!, type: "message" as const })),
};

async function measure(id: string, cold: boolean): Promise<number> {
  const codebook = await loadCodebook(id);
  const passes = 40;
  // Warm-up pass: JIT and compromise's lazy lexicon set-up are not part of the steady state.
  for (let i = 0; i < session.turns.length; i++) codeTurnWithRules(codebook, session, i);
  const start = performance.now();
  for (let p = 0; p < passes; p++) {
    if (cold) clearTextCache();
    for (let i = 0; i < session.turns.length; i++) codeTurnWithRules(codebook, session, i);
  }
  const seconds = (performance.now() - start) / 1000;
  return (passes * session.turns.length) / seconds;
}

console.log(`rules coder throughput, ${session.turns.length} distinct turns x 40 passes (target >= ${TARGET} turns/s)`);
for (const id of ["bales-ipa", "pragmatic-style"]) {
  for (const cold of [true, false]) {
    const rate = await measure(id, cold);
    console.log(
      `  ${id.padEnd(16)} ${cold ? "cold" : "warm"}: ${Math.round(rate).toLocaleString("en-US").padStart(8)} turns/s  (${(rate / TARGET).toFixed(2)}x target)`,
    );
  }
}
