import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { validateXML } from "xmllint-wasm";

/**
 * Schema checks of what Colloquy writes: our own subset of the REFI-QDA 1.0 schemas (schema/,
 * always there), and the official 2019 schemas (Project-mrt2019.xsd, Codebook-mrt2019.xsd) when
 * ../shared/corpora/qda/xsd is present beside the repository. They are never copied into it.
 */

const own = fileURLToPath(new URL("./schema/", import.meta.url));
const official = fileURLToPath(new URL("../../../shared/corpora/qda/xsd/", import.meta.url));

const SCHEMAS = {
  project: { own: "project-subset.xsd", official: "Project-mrt2019.xsd" },
  codebook: { own: "codebook-subset.xsd", official: "Codebook-mrt2019.xsd" },
} as const;

/** Whether the official schemas are here (tests that need them say so when they are not). */
export const officialSchemas = existsSync(join(official, SCHEMAS.project.official)) ? official : undefined;

async function errors(xml: string, dir: string, xsd: string): Promise<string[]> {
  const result = await validateXML({
    xml: { fileName: "doc.xml", contents: xml },
    schema: { fileName: xsd, contents: await readFile(join(dir, xsd), "utf8") },
  });
  return result.errors.map((e) => e.rawMessage);
}

/** Errors of a document against our schema subset, and against the official schema when present. */
export async function schemaErrors(xml: string, kind: keyof typeof SCHEMAS): Promise<{ own: string[]; official?: string[] }> {
  return {
    own: await errors(xml, own, SCHEMAS[kind].own),
    ...(officialSchemas ? { official: await errors(xml, officialSchemas, SCHEMAS[kind].official) } : {}),
  };
}
