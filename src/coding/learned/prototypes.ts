import type { Session } from "../../transcript/schema.js";
import type { Codebook } from "../codebook/schema.js";
import { turnTerms } from "./features.js";
import type { TrainingExample } from "./model.js";

/**
 * The codebook's own example utterances as low-weight training turns ("prototypes"): each
 * category's `examples`, and each counter-example whose right code is named at its end in
 * parentheses ("Great, that works for me. (agrees: 3)" is a turn of the category with alias "3"
 * or label "agrees"). They are part of the researcher's codebook, so every study has them; with few
 * human codes they tell the model which words go with which category, and as the human codes grow
 * their share of the objective (weight x prototypes against the human codes) shrinks.
 * A prototype is a turn without a conversation, so it has text features only (an empty context
 * block). Nominal codebooks only; a scales codebook has none.
 */

/** The category a counter-example's trailing "(... N)" or "(name: N)" names, if any. */
function namedCategory(codebook: Extract<Codebook, { kind: "nominal" }>, text: string): string | undefined {
  const note = /\(([^()]*)\)\s*$/.exec(text)?.[1];
  if (note === undefined) return undefined;
  const names = note
    .split(":")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const found = codebook.categories.find((c) => names.some((n) => [c.id, c.label, ...(c.aliases ?? [])].some((a) => a.toLowerCase() === n)));
  return found?.id;
}

/** The turn of a counter-example without its "(right code)" note. */
const withoutNote = (text: string) => text.replace(/\s*\([^()]*\)\s*$/, "");

/** The codebook's examples and resolvable counter-examples, each weighing `weight`, in the codebook's order. */
export function codebookPrototypes(codebook: Codebook, weight: number): TrainingExample[] {
  if (codebook.kind !== "nominal" || !(weight > 0)) return [];
  const texts: [string, string][] = codebook.categories.flatMap((c) => [
    ...c.examples.map((text): [string, string] => [text, c.id]),
    ...(c.counterExamples ?? []).flatMap((text): [string, string][] => {
      const code = namedCategory(codebook, text);
      return code ? [[withoutNote(text), code]] : [];
    }),
  ]);
  return texts.map(([text, code]) => {
    const session: Session = {
      schemaVersion: 1,
      id: "codebook",
      metadata: {},
      participants: [{ id: "p", name: "p", kind: "human" }],
      turns: [{ id: "t0", index: 0, speaker: "p", text, type: "message" }],
    } as Session;
    const { blocks } = turnTerms(session, 0);
    return { terms: { blocks: [blocks[0], blocks[1], { bucket: [], count: [] }] }, codes: [code], weight };
  });
}
