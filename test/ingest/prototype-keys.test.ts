import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textInput } from "../../src/ingest/input.js";
import { importers } from "../../src/ingest/registry.js";
import { validateSession } from "../../src/transcript/validate.js";
import { parseXmlTree } from "../../src/util/xml.js";

/**
 * A speaker, role or entity named like a member of every object ("valueOf", "constructor",
 * "toString", "__proto__") is looked up as any other name: the property tests met a Claude export
 * whose sender "valueOf" gave its participant a function for a kind.
 */
const FIXTURES = join(import.meta.dirname, "../../fixtures/transcripts");
const NAMES = ["valueOf", "constructor", "toString", "__proto__", "hasOwnProperty"];

/** The fixture with every value of `key` set to `name`. */
function renamed(value: unknown, key: string, name: string): unknown {
  if (Array.isArray(value)) return value.map((v) => renamed(v, key, name));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === key && typeof v === "string" ? name : renamed(v, key, name)]));
}

describe("names that are members of every object", () => {
  const cases: [importer: string, fixture: string, key: string, kind: string][] = [
    ["claude-export", "claude-export/conversations-with-thinking-tools-attachment.json", "sender", "human"],
    ["chatgpt", "chatgpt/conversations.json", "role", "system"],
    ["chat-json", "chat-json/team-planning.json", "role", "human"],
  ];
  for (const [name, fixture, key, kind] of cases) {
    it(`${name}: a ${key} named so is a participant of the default kind`, async () => {
      const importer = importers.find((i) => i.name === name)!;
      const original = JSON.parse(await readFile(join(FIXTURES, fixture), "utf8"));
      for (const odd of NAMES) {
        const result = await importer.parse(textInput(fixture, JSON.stringify(renamed(original, key, odd))), {});
        const sessions = result.sessions.map((s) => validateSession(s, fixture));
        expect(sessions.length, odd).toBeGreaterThan(0);
        for (const session of sessions) for (const p of session.participants.filter((p) => p.name === odd)) expect(p.kind, `${name} ${odd}`).toBe(kind);
      }
    });
  }

  // (Element names are the XML parser's: fast-xml-parser renames or refuses such names itself.)
  it("ELAN: a dependent tier named so keeps its annotations", async () => {
    const fixture = "elan/two-speakers-with-translation-tier.eaf";
    const original = await readFile(join(FIXTURES, fixture), "utf8");
    const importer = importers.find((i) => i.name === "elan")!;
    for (const odd of NAMES) {
      const text = original.replaceAll('TIER_ID="Rosa-en"', `TIER_ID="${odd}"`);
      const [session] = (await importer.parse(textInput(fixture, text), {})).sessions.map((s) => validateSession(s, fixture));
      const tiers = session.turns[0].metadata?.tiers as Record<string, unknown>;
      expect(Object.hasOwn(tiers, odd) && tiers[odd], odd).toEqual(["Shall we ask the assistant?"]);
    }
  });

  it("XML: an entity named so is an undefined entity, not text", () => {
    expect(parseXmlTree("<a>&amp;</a>", new Set())).toBeDefined();
    for (const odd of NAMES) expect(() => parseXmlTree(`<a>&${odd};</a>`, new Set()), odd).toThrow();
  });
});
