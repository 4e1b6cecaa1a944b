import { z } from "zod";

/**
 * Colloquy's one transcript model. Every importer produces it, the orchestrator writes it,
 * and every later stage (coding, statistics, topics, dashboard) reads only this.
 * Bump SESSION_SCHEMA_VERSION on any incompatible change and keep a reader for old versions.
 */
export const SESSION_SCHEMA_VERSION = 1;

/**
 * Participant kinds. `simulated` is a person played by a model (a playbook-driven participant in
 * an orchestrated session): never counted as a human, nor as an AI agent, in any analysis.
 */
export const participantKinds = ["human", "ai", "simulated", "system"] as const;
export const turnTypes = ["message", "backchannel", "interruption", "system", "file", "reasoning", "action"] as const;

const metadataRecord = z.record(z.string(), z.unknown());

export const participantSchema = z.object({
  /** Stable id, unique within the session; turns refer to it. */
  id: z.string().min(1),
  /** Name as shown in the source (verbatim). */
  name: z.string(),
  role: z.string().optional(),
  kind: z.enum(participantKinds),
  /** Persona or system prompt of an AI agent, when known. */
  persona: z.string().optional(),
  metadata: metadataRecord.optional(),
});

export const turnSchema = z.object({
  /** Stable id, unique within the session (code records point at it). */
  id: z.string().min(1),
  /** 0-based position in the session. */
  index: z.number().int().nonnegative(),
  /** Participant id of the speaker. */
  speaker: z.string().min(1),
  /** The words exactly as the source has them. Never trimmed or rewritten by Colloquy. */
  text: z.string(),
  /** Seconds from session start (derived from the source's clock when it has one). */
  start: z.number().optional(),
  end: z.number().optional(),
  /** The source's own time stamp, verbatim: ISO date-time, "6:35 PM", "00:01:23.500", … */
  timestamp: z.string().optional(),
  /** Participant ids this turn is addressed to, when known. */
  addressees: z.array(z.string()).optional(),
  type: z.enum(turnTypes).default("message"),
  /** Anything else the source says about the turn (unmapped CSV columns, thread ids, decisions). */
  metadata: metadataRecord.optional(),
});

export const sessionMetadataSchema = z
  .object({
    condition: z.string().optional(),
    run: z.string().optional(),
    task: z.string().optional(),
    date: z.string().optional(),
    /** Where the session came from: file path (as given), format name. */
    source: z.object({ file: z.string().optional(), format: z.string().optional() }).passthrough().optional(),
    /** True when a run stopped before its end (orchestrator failures); resumable. */
    incomplete: z.boolean().optional(),
  })
  .catchall(z.unknown());

export const sessionSchema = z.object({
  schemaVersion: z.literal(SESSION_SCHEMA_VERSION).default(SESSION_SCHEMA_VERSION),
  /** Unique within a study; also the file name under sessions/. Safe characters only. */
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' or '-' only"),
  title: z.string().optional(),
  metadata: sessionMetadataSchema.default({}),
  participants: z.array(participantSchema),
  turns: z.array(turnSchema),
});

export type Participant = z.infer<typeof participantSchema>;
export type ParticipantKind = (typeof participantKinds)[number];
export type Turn = z.infer<typeof turnSchema>;
export type TurnType = (typeof turnTypes)[number];
export type SessionMetadata = z.infer<typeof sessionMetadataSchema>;
export type Session = z.infer<typeof sessionSchema>;
/** What importers and the orchestrator build before validation (defaults not yet applied). */
export type SessionInput = z.input<typeof sessionSchema>;
