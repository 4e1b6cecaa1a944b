import { z } from "zod";

/**
 * The provenance block (util/provenance.ts) as a file holds it: details vary per output and are
 * kept. Apart from provenance.ts so that stamping an output (which every command may do, even
 * `--version`) loads no schema library.
 */
export const provenanceSchema = z.looseObject({
  tool: z.literal("colloquy"),
  version: z.string(),
  createdAt: z.string(),
});
