import type { Codebook } from "../coding/codebook/schema.js";

/**
 * Matching imported code labels ("5", "Gives opinion", "gives-opinion") to a codebook's
 * category ids: by each category's id, label or aliases, ignoring case and surrounding blanks.
 * Label collisions between categories are a codebook problem and are reported, not guessed.
 */
export interface LabelIndex {
  codebook: Codebook;
  /** Normalised label -> category id. */
  byLabel: Map<string, string>;
  /** Labels that name more than one category (left unmatched). */
  ambiguous: Set<string>;
}

const norm = (label: string): string => label.trim().replace(/\s+/g, " ").toLowerCase();

export function categoryLabelIndex(codebook: Codebook): LabelIndex {
  const byLabel = new Map<string, string>();
  const ambiguous = new Set<string>();
  if (codebook.kind !== "nominal") return { codebook, byLabel, ambiguous };
  const add = (label: string, id: string): void => {
    const key = norm(label);
    const existing = byLabel.get(key);
    if (existing !== undefined && existing !== id) ambiguous.add(key);
    else byLabel.set(key, id);
  };
  // Ids first so an alias can never shadow another category's id.
  for (const c of codebook.categories) add(c.id, c.id);
  for (const c of codebook.categories) {
    add(c.label, c.id);
    for (const alias of c.aliases ?? []) add(alias, c.id);
  }
  for (const key of ambiguous) byLabel.delete(key);
  return { codebook, byLabel, ambiguous };
}

/**
 * Category ids for one imported label. Multi-coding codebooks accept several labels separated by
 * ";" or "|". Returns the matched ids and the parts that matched nothing.
 */
export function matchCodeLabel(index: LabelIndex, label: string): { ids: string[]; unmatched: string[] } {
  const multiple = index.codebook.kind === "nominal" && index.codebook.multiple;
  const parts = multiple ? label.split(/[;|]/).filter((p) => p.trim() !== "") : [label];
  const ids: string[] = [];
  const unmatched: string[] = [];
  for (const part of parts) {
    const id = index.byLabel.get(norm(part));
    if (id === undefined) unmatched.push(part.trim());
    else if (!ids.includes(id)) ids.push(id);
  }
  return { ids, unmatched };
}
