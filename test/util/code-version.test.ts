import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { codeRoot, codeVersion } from "../../src/util/code-version.js";
import { installedVersion } from "../../src/util/package-version.js";

const compromiseVersion = () => installedVersion("compromise");

const installed = (name: string) =>
  (JSON.parse(readFileSync(join(import.meta.dirname, "../../node_modules", name, "package.json"), "utf8")) as { version: string }).version;

describe("codeVersion: the one version every cache is kept under", () => {
  it("names the libraries whose results the caches hold (compromise, zod) and V8, beside the hash of colloquy's modules", () => {
    const parts = codeVersion().split("\u0000");
    expect(parts[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(parts.slice(1)).toEqual([compromiseVersion(), `zod ${installed("zod")}`, process.versions.v8]);
    expect(compromiseVersion()).toBe(installed("compromise"));
  });

  it("hashes the modules below src/ (or dist/src/), or the CLI bundle's own folder when running from it", () => {
    expect(codeRoot(join("/pkg", "src", "util"))).toBe(join("/pkg", "src"));
    expect(codeRoot(join("/pkg", "dist", "src", "util"))).toBe(join("/pkg", "dist", "src"));
    expect(codeRoot(join("/pkg", "dist", "src", "bundle"))).toBe(join("/pkg", "dist", "src", "bundle"));
  });
});
