import { ADJUDICATED_CODER } from "../coding/annotate/desk.js";
import { registerHumanCoders } from "../study/study.js";
import { errorMessage } from "../util/errors.js";
import type { StageEffects } from "./context.js";

/**
 * A person's codes count in `colloquy study`'s agreement without a hand edit of colloquy.json:
 * whatever brings them in (the coding page, a coding sheet, an import's code column or transcript
 * labels, a QDA project) lists the person under humanCoders. Adjudicated codes (a sheet or page
 * settling disagreements) stay opt-in: listed, agreement would compare the people with decisions
 * made from their own codes.
 */
const listedAutomatically = (coder: string): boolean => coder.startsWith("human:") && coder !== ADJUDICATED_CODER;

/** The line that says a coder was listed. */
export const listedLine = (coder: string): string =>
  `${coder} is now listed under "humanCoders" in colloquy.json: \`colloquy study\` compares the machine coders with it`;

/**
 * List the people among `coders` (listedAutomatically); returns those newly listed, for the caller
 * to say so (listedLine) where it reports. Called once the codes are saved, so a colloquy.json that
 * cannot be edited only warns.
 */
export async function listHumanCoders(dir: string, coders: readonly string[], effects: StageEffects): Promise<string[]> {
  const people = coders.filter(listedAutomatically);
  if (people.length === 0) return [];
  try {
    return await registerHumanCoders(dir, people);
  } catch (error) {
    effects.warn(`${people.join(", ")} could not be listed under "humanCoders" in colloquy.json (${errorMessage(error)}); the codes are saved`);
    return [];
  }
}
