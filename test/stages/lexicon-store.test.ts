import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { openStudy, runCode, runImport, silentEffects } from "../../src/index.js";
import { loadLexiconAnswers } from "../../src/coding/rules/lexicon-store.js";
import { clearTextCache, imperativeAnswers, isImperativeVerb } from "../../src/coding/rules/text.js";

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
    await writeFile(path, "torn");
    await expect(loadLexiconAnswers(dir)).resolves.toBeUndefined();
  });
});
