import { mkdtemp, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directoryInput, textInput } from "../../src/ingest/input.js";
import { importers } from "../../src/ingest/registry.js";
import { ImportError, type Importer, type ImportOptions } from "../../src/ingest/types.js";
import { validateSession } from "../../src/transcript/validate.js";

/**
 * The importer contract on arbitrary input: every importer either returns a result whose
 * sessions all pass validateSession, or throws ImportError — never a TypeError, RangeError or
 * anything else, and never a hang (each run has a time limit).
 */

const FIXTURES = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));
// Generous: a loaded CI machine must not turn a slow run into a false "hang".
const RUN_LIMIT_MS = 5_000;

/** Every fixture file of a format (folders walked), as text. */
async function fixtureTexts(format: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch {
      return;
    }
    for (const e of entries.sort()) {
      const path = join(dir, e);
      if ((await stat(path)).isDirectory()) await walk(path);
      else out.push(await readFile(path, "utf8"));
    }
  };
  await walk(join(FIXTURES, format));
  return out;
}

/** Options that switch on every importer's optional paths. */
const optionSets: ImportOptions[] = [{}, { splitContinuations: true, mergeCues: true, promptsAs: "metadata", agents: ["Atlas", "assistant", "Agent Alpha"] }];

/** Resolves with what an import did, or rejects when it breaks the contract. */
async function checkContract(importer: Importer, run: () => Promise<unknown>, limitMs = RUN_LIMIT_MS): Promise<"ok" | "import-error"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${importer.name}: no result within ${limitMs} ms`)), limitMs);
  });
  try {
    const result = (await Promise.race([run(), timeout])) as { sessions: unknown[]; codes: unknown[]; warnings: unknown[] };
    expect(Array.isArray(result.sessions) && Array.isArray(result.codes) && Array.isArray(result.warnings)).toBe(true);
    result.sessions.forEach((s, i) => validateSession(s, `${importer.name} session ${i}`));
    for (const w of result.warnings) expect(typeof w).toBe("string");
    return "ok";
  } catch (error) {
    if (error instanceof ImportError) {
      // The message must say where: the file name is always in it.
      expect(error.message.startsWith(error.file)).toBe(true);
      return "import-error";
    }
    throw new Error(`${importer.name} threw ${error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Text edits: delete a slice, insert random text, or duplicate a slice, at random places. */
const edit = fc.record({
  at: fc.nat(),
  len: fc.nat({ max: 40 }),
  insert: fc.string({
    unit: fc.constantFrom(
      "\n",
      "\r\n",
      " ",
      ":",
      "(",
      ")",
      '"',
      "{",
      "}",
      "[",
      "]",
      ",",
      "0",
      "9",
      "A",
      "M",
      "P",
      "é",
      "🙂",
      "\t",
      ";",
      "<",
      ">",
      "-",
      "New",
      "APP  ",
    ),
    maxLength: 12,
  }),
  kind: fc.constantFrom("delete", "insert", "duplicate"),
});

function applyEdits(text: string, edits: { at: number; len: number; insert: string; kind: string }[]): string {
  let out = text;
  for (const e of edits) {
    const at = out.length === 0 ? 0 : e.at % (out.length + 1);
    if (e.kind === "delete") out = out.slice(0, at) + out.slice(at + e.len);
    else if (e.kind === "insert") out = out.slice(0, at) + e.insert + out.slice(at);
    else out = out.slice(0, at) + out.slice(at, at + e.len) + out.slice(at);
  }
  return out;
}

/** Replace one node of a JSON tree (chosen by `pick`) with `replacement`. */
function mutateJson(value: unknown, pick: number, replacement: unknown): unknown {
  const slots: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach((c, i) => (slots.push({ parent: v, key: i }), walk(c)));
    else if (v && typeof v === "object") {
      for (const [k, c] of Object.entries(v)) {
        slots.push({ parent: v as Record<string, unknown>, key: k });
        walk(c);
      }
    }
  };
  const copy = structuredClone(value);
  walk(copy);
  if (slots.length === 0) return replacement;
  const slot = slots[pick % slots.length];
  (slot.parent as Record<string | number, unknown>)[slot.key] = replacement;
  return copy;
}

const fileImporters = importers.filter((i) => i.input === "file");

describe("the contract check itself", () => {
  const fake = (parse: Importer["parse"]): Importer => ({ name: "fake", description: "", extensions: [], input: "file", detect: () => 0, parse });
  it("fails on a TypeError, an invalid session, or a hang, and accepts ImportError", async () => {
    const typeError = fake(async () => {
      throw new TypeError("boom");
    });
    await expect(checkContract(typeError, () => typeError.parse(textInput("a", ""), {}))).rejects.toThrow(/fake threw TypeError: boom/);
    const invalid = fake(async () => ({
      sessions: [{ id: "s", participants: [], turns: [{ id: "t", index: 0, speaker: "ghost", text: "" }] }],
      codes: [],
      warnings: [],
    }));
    await expect(checkContract(invalid, () => invalid.parse(textInput("a", ""), {}))).rejects.toThrow(/not a participant id/);
    const hang = fake(() => new Promise(() => undefined));
    await expect(checkContract(hang, () => hang.parse(textInput("a", ""), {}), 50)).rejects.toThrow(/no result within/);
    const typed = fake(async () => {
      throw new ImportError({ file: "a", line: 1, problem: "bad", expected: "good" });
    });
    await expect(checkContract(typed, () => typed.parse(textInput("a", ""), {}))).resolves.toBe("import-error");
  });
});

describe("every file importer returns valid sessions or throws ImportError", () => {
  const fixtures = new Map<string, string[]>();
  beforeAll(async () => {
    for (const i of fileImporters) fixtures.set(i.name, await fixtureTexts(i.name));
  });

  it("has fixtures for every importer (so the mutation tests below are not vacuous)", () => {
    for (const i of importers)
      expect({ format: i.name, count: i.input === "file" ? fixtures.get(i.name)?.length : 1 }).toMatchObject({ format: i.name, count: expect.any(Number) });
    for (const i of fileImporters) expect(fixtures.get(i.name)!.length, i.name).toBeGreaterThan(0);
  });

  for (const importer of fileImporters) {
    const ext = importer.extensions[0] ?? ".txt";

    it(`${importer.name}: random strings and random JSON`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 200 }), fc.json({ maxDepth: 4 })),
          fc.constantFrom(...optionSets),
          async (text, options) => {
            await checkContract(importer, () => importer.parse(textInput(`random${ext}`, text), options));
          },
        ),
        { numRuns: 40 },
      );
    });

    it(`${importer.name}: mutated fixtures (text edits)`, async () => {
      const texts = fixtures.get(importer.name)!;
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 5 }), fc.constantFrom(...optionSets), async (which, edits, options) => {
          const text = applyEdits(texts[which % texts.length], edits);
          await checkContract(importer, () => importer.parse(textInput(`mutated${ext}`, text), options));
        }),
        { numRuns: 50 },
      );
    });

    it(`${importer.name}: mutated fixtures (a JSON node replaced by random JSON)`, async () => {
      const parsed = fixtures.get(importer.name)!.flatMap((t) => {
        try {
          return [JSON.parse(t) as unknown];
        } catch {
          return [];
        }
      });
      if (parsed.length === 0) return; // text format: covered by the text edits above
      let imported = 0;
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...optionSets), async (which, pick, replacement, options) => {
          const text = JSON.stringify(mutateJson(parsed[which % parsed.length], pick, replacement));
          if ((await checkContract(importer, () => importer.parse(textInput(`mutated${ext}`, text), options))) === "ok") imported++;
        }),
        { numRuns: 60 },
      );
      // Most single-node mutations still import: the test reaches deep into the importer.
      expect(imported).toBeGreaterThan(0);
    });
  }
});

describe("folder importers return valid sessions or throw ImportError", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "colloquy-props-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  for (const importer of importers.filter((i) => i.input === "directory")) {
    it(`${importer.name}: mutated export folders`, async () => {
      const workspace = join(FIXTURES, importer.name, "workspace");
      const files: { rel: string; json: unknown }[] = [];
      const walk = async (dir: string, rel: string): Promise<void> => {
        for (const e of (await readdir(dir)).sort()) {
          const path = join(dir, e);
          if ((await stat(path)).isDirectory()) await walk(path, join(rel, e));
          else files.push({ rel: join(rel, e), json: JSON.parse(await readFile(path, "utf8")) });
        }
      };
      await walk(workspace, "");
      expect(files.length).toBeGreaterThan(2);
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.nat(),
          fc.jsonValue({ maxDepth: 3 }),
          fc.boolean(),
          fc.constantFrom(...optionSets),
          async (which, pick, replacement, raw, options) => {
            const dir = join(root, `run-${n++}`);
            const target = files[which % files.length];
            for (const f of files) {
              await mkdir(join(dir, f.rel, ".."), { recursive: true });
              let text = JSON.stringify(f.json);
              if (f === target) text = raw ? JSON.stringify(replacement) : JSON.stringify(mutateJson(f.json, pick, replacement));
              await writeFile(join(dir, f.rel), text);
            }
            await checkContract(importer, () => importer.parse(directoryInput(dir), options));
          },
        ),
        { numRuns: 30 },
      );
    });
  }
});
