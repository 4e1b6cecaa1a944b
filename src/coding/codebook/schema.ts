import { z } from "zod";

/**
 * Codebooks are data (JSON files under codebooks/ or the researcher's own), validated here.
 * Two kinds:
 *  - nominal: categories, one code per turn unless `multiple` is true;
 *  - scales: one or more ordinal scales 1..points with an anchor text for every point,
 *    all rated together for each unit.
 * `version` is part of every code record, so changing a definition changes what a code means:
 * bump it whenever definitions change.
 */

const idPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export const categorySchema = z
  .object({
    id: z.string().regex(idPattern, "letters, digits, '.', '_' or '-'"),
    label: z.string().min(1),
    definition: z.string().min(1),
    examples: z.array(z.string()).default([]),
    /** Text that must NOT be coded here (sharpens LLM prompts). */
    counterExamples: z.array(z.string()).optional(),
    /** Other labels that mean this category in imported human codes ("1", "Shows solidarity"). */
    aliases: z.array(z.string()).optional(),
    /** Ids of groups this category belongs to (e.g. Bales' areas). */
    groups: z.array(z.string()).optional(),
  })
  .strict();

export const groupSchema = z
  .object({
    id: z.string().regex(idPattern),
    label: z.string(),
    /** e.g. "area" or "problem" for Bales; free text for researchers' own. */
    kind: z.string().optional(),
    description: z.string().optional(),
  })
  .strict();

export const scaleSchema = z
  .object({
    id: z.string().regex(idPattern),
    label: z.string().min(1),
    definition: z.string().min(1),
    /** Number of points: ratings are integers 1..points. */
    points: z.number().int().min(2).max(101),
    /** One anchor text per point, in order (anchors[0] describes 1). */
    anchors: z.array(z.string().min(1)),
    /** Unit the scale is rated on; defaults to the codebook's unit. */
    unit: z.enum(["turn", "idea", "idea-list"]).optional(),
  })
  .strict()
  .refine((s) => s.anchors.length === s.points, {
    message: "needs exactly one anchor per point",
    path: ["anchors"],
  });

/** A count measure (e.g. TTCT fluency: number of ideas), rated over a list of ideas. */
export const countSchema = z
  .object({
    id: z.string().regex(idPattern),
    label: z.string().min(1),
    definition: z.string().min(1),
    unit: z.enum(["turn", "idea", "idea-list"]).optional(),
  })
  .strict();

const common = {
  id: z.string().regex(idPattern),
  version: z.string().min(1),
  title: z.string().min(1),
  description: z.string().optional(),
  /** Citation(s) the definitions follow. */
  references: z.array(z.string()).optional(),
  /** What one coded unit is: a turn (default), an idea, or a list of ideas. */
  unit: z.enum(["turn", "idea", "idea-list"]).default("turn"),
  /** Extra instructions for coders (human or LLM). */
  instructions: z.string().optional(),
  /**
   * The offline rule set that codes this codebook (`--coder rules`), by name: "bales-ipa" or
   * "pragmatic-style". A researcher's adaptation of Bales may name "bales-ipa" if it keeps the
   * category ids; without it the codebook is coded by an LLM or by people.
   */
  rules: z.string().optional(),
};

export const nominalCodebookSchema = z
  .object({
    ...common,
    kind: z.literal("nominal"),
    /** Allow several categories per unit. */
    multiple: z.boolean().default(false),
    categories: z.array(categorySchema).min(2),
    groups: z.array(groupSchema).default([]),
    /** Category used when nothing fits (e.g. Bales' 13 "None of the above"). */
    fallback: z.string().optional(),
  })
  .strict();

export const scalesCodebookSchema = z
  .object({
    ...common,
    kind: z.literal("scales"),
    scales: z.array(scaleSchema).min(1),
    counts: z.array(countSchema).default([]),
  })
  .strict();

export const codebookSchema = z.discriminatedUnion("kind", [nominalCodebookSchema, scalesCodebookSchema]);

export type Category = z.infer<typeof categorySchema>;
export type CategoryGroup = z.infer<typeof groupSchema>;
export type Scale = z.infer<typeof scaleSchema>;
export type NominalCodebook = z.infer<typeof nominalCodebookSchema>;
export type ScalesCodebook = z.infer<typeof scalesCodebookSchema>;
export type Codebook = z.infer<typeof codebookSchema>;
