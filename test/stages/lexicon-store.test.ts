import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { openStudy, runCode, runImport, silentEffects } from "../../src/index.js";
import { loadLexiconAnswers } from "../../src/coding/rules/lexicon-store.js";
import { clearTextCache, imperativeAnswers, isImperativeVerb, LEXICON_COMPLETE } from "../../src/coding/rules/text.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

describe("the rules coder's lexicon answers kept between runs (.cache/rules-lexicon.v8)", () => {
  it("are written by a rules run, used by later runs under the same compromise, and ignored from another version or a torn file", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-lexicon-")), "demo");
    await cp(demo, dir, { recursive: true });
    const study = await openStudy(dir);
    await runImport(study, { paths: [join(dir, "inbox")], pathPattern: study.config.import.pathPattern }, silentEffects);
    await runCode(study, { codebook: "bales-ipa", coder: "rules" }, silentEffects);

    const path = join(dir, ".cache", "rules-lexicon.v8");
    const stored = deserialize(await readFile(path)) as { version: string; maps: [[string, boolean][]] };
    const answers = new Map(stored.maps[0]);
    expect(answers.size).toBeGreaterThan(0);
    // The first word the lexicon was asked about stored all its base-form verbs, marked complete.
    expect(answers.get(LEXICON_COMPLETE)).toBe(true);
    expect(answers.get("accept")).toBe(true);
    // What was stored is what the lexicon says (asked afresh: this process's answers forgotten first).
    clearTextCache();
    for (const [word, answer] of answers) expect(isImperativeVerb(word)).toBe(answer);

    const forged = (word: string, version: string) => writeFile(path, serialize({ version, maps: [[...stored.maps[0], [word, true]]] }));
    await forged("zzotherversion", "another compromise");
    await loadLexiconAnswers(dir);
    expect(imperativeAnswers().has("zzotherversion")).toBe(false);
    await forged("zzstoredverb", stored.version);
    await loadLexiconAnswers(dir);
    expect(isImperativeVerb("zzstoredverb")).toBe(true);
    imperativeAnswers().delete("zzstoredverb");
    // A complete store answers every word: one it does not list is no verb, the lexicon not asked.
    clearTextCache();
    await writeFile(path, serialize({ version: stored.version, maps: [[[LEXICON_COMPLETE, true]]] }));
    await loadLexiconAnswers(dir);
    expect(isImperativeVerb("accept")).toBe(false);
    clearTextCache();
    expect(isImperativeVerb("accept")).toBe(true);
    expect(isImperativeVerb("constructor")).toBe(false);
    expect(isImperativeVerb("table")).toBe(false);
    await writeFile(path, "torn");
    await expect(loadLexiconAnswers(dir)).resolves.toBeUndefined();
  });
});
