import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCodes } from "../../src/coding/store.js";
import { mulberry32, shuffleInPlace } from "../../src/util/random.js";
import { runCli } from "../support/cli.js";
import { importAliceCodes, templatedStudy, type TemplatedStudy } from "../support/templated-study.js";

/**
 * When the human codes change so that the learned coder falls under the floor, `code` refuses and
 * stores nothing new; the codes of the earlier training stay, still saying "validated". The refusal
 * says they are out of date, so a researcher does not go on reading them as checked.
 */

let dir: string;
let made: TemplatedStudy;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-learned-out-of-date-"));
  made = await templatedStudy(dir, { seed: 5, sessions: 10 });
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("learned coder under the floor after the human codes changed", { timeout: 300_000 }, () => {
  it("says the codes of the earlier training are out of date", async () => {
    const { study, codes } = made;
    await importAliceCodes(made, codes);
    expect((await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice"])).code).toBe(0);
    const before = await readCodes(study, "bales-ipa", "learned");
    expect(before[0].provenance.validation).toMatchObject({ status: "validated" });
    // The same turns recoded at random: nothing left to learn.
    await importAliceCodes(made, shuffleInPlace([...codes], mulberry32(9)));
    const stop = await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice"]);
    expect(stop.code).not.toBe(0);
    expect(stop.stderr).toMatch(/under 0\.4/);
    expect(stop.stderr).toContain(`The ${before.length} learned code(s) of bales-ipa already stored were learned from other human codes`);
    expect(stop.stderr).toContain('they still say "validated"');
    expect(await readCodes(study, "bales-ipa", "learned")).toEqual(before);
  });
});
