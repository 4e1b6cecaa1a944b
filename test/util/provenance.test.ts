import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { provenance, toolVersion } from "../../src/util/provenance.js";
import { provenanceSchema } from "../../src/util/provenance-schema.js";

describe("provenance", () => {
  it("stamps the version package.json declares", () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as { version: string };
    expect(toolVersion).toBe(pkg.version);
  });

  it("keeps the details and reads back through its schema", () => {
    const stamped = provenance({ command: "agree", seed: 7 });
    expect(provenanceSchema.parse(stamped)).toMatchObject({ tool: "colloquy", version: toolVersion, command: "agree", seed: 7 });
    expect(() => provenanceSchema.parse({ ...stamped, tool: "other" })).toThrow();
  });
});
