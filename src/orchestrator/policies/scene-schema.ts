import { z } from "zod";

/**
 * Parameters of the scene strategy: scripted and generated snippets chained in a graph,
 * parties with speaking modes, moderated turn order with raised hands, interruptions,
 * backchannels, scripted lines and derailers. Every probability is per opportunity and
 * drawn from the session's seeded generator.
 */
export const partySchema = z
  .object({
    name: z.string().min(1),
    members: z.array(z.string()).min(1),
    /** all: every member speaks in turn; representative: one fixed member; subset: `subsetSize` random members; random: one random member. */
    speakingMode: z.enum(["all", "representative", "subset", "random"]).default("random"),
    representative: z.string().optional(),
    subsetSize: z.number().int().positive().default(2),
  })
  .strict();

export const snippetSchema = z
  .object({
    id: z.string().min(1),
    /** Participant or party name that opens the snippet. */
    initiator: z.string(),
    /** Turns in this snippet, the initiator's included (impromptu phases come on top). */
    turns: z.number().int().positive(),
    pattern: z.enum(["agree", "disagree", "neutral"]).default("neutral"),
    /** What the snippet is about (given to speakers). */
    prompt: z.string().default(""),
    /** Party order in this snippet (default: the scene's partyOrder). */
    partyOrder: z.enum(["free", "round-robin", "moderated"]).optional(),
    /** Parties taking part (default: all). */
    parties: z.array(z.string()).optional(),
    /** Lines spoken verbatim in order instead of generated ones (fully scripted snippet), by participant name. */
    script: z.array(z.object({ speaker: z.string(), text: z.string() }).strict()).optional(),
    /** Snippet ids that may follow; one is chosen at random; empty = the scene ends. */
    next: z.array(z.string()).default([]),
  })
  .strict();

export const sceneParamsSchema = z
  .object({
    parties: z.array(partySchema).default([]),
    partyOrder: z.enum(["free", "round-robin", "moderated"]).default("free"),
    moderator: z.string().optional(),
    /** Moderated order: probability that each eligible member raises a hand after a turn. */
    handRaiseProbability: z.number().min(0).max(1).default(0.5),
    snippets: z.array(snippetSchema).min(1),
    start: z.string().optional(),
    interruptions: z
      .array(z.object({ from: z.string(), to: z.string(), probability: z.number().min(0).max(1), tone: z.string().default("eager") }).strict())
      .default([]),
    backchannel: z
      .object({ probability: z.number().min(0).max(1).default(0.15), texts: z.array(z.string()).min(1).default(["mm-hm", "right", "yeah", "I see"]) })
      .strict()
      .default({ probability: 0.15, texts: ["mm-hm", "right", "yeah", "I see"] }),
    derailers: z
      .array(
        z
          .object({
            participant: z.string(),
            probability: z.number().min(0).max(1),
            /** Turns in the impromptu phase, the derailing turn included. */
            length: z.number().int().positive().default(3),
            kinds: z
              .array(z.enum(["drift", "extend", "probe", "emotional"]))
              .min(1)
              .default(["drift", "extend", "probe", "emotional"]),
            /** Hold each derail for approval or edit before it is said (by the operator, unless `approver` names a human participant). */
            approval: z.boolean().default(false),
            /** A human participant who approves this derailer's derails instead of the operator. */
            approver: z.string().optional(),
          })
          .strict(),
      )
      .default([]),
    wordLimit: z.number().int().positive().default(50),
  })
  .strict();

export type SceneParams = z.infer<typeof sceneParamsSchema>;
export type Party = z.infer<typeof partySchema>;
export type Snippet = z.infer<typeof snippetSchema>;
