import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { readStampedFile, writeStampedFile } from "../../src/util/stamped-file.js";
import { memoPath, memoResult } from "../../src/study/session-memo.js";

describe("stamped cache files (one v8 object, used only under the stamp that wrote it)", () => {
  it("write then read under the same stamp; another stamp, a torn, foreign or missing file reads as nothing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-stamped-"));
    const path = join(dir, "sub", "x.v8");
    expect(await readStampedFile(path, "version", "v1")).toBeUndefined();
    const fields = { inputs: "abc", value: { mean: Number.NaN, list: [Number.POSITIVE_INFINITY], missing: undefined } };
    await writeStampedFile(path, "version", "v1", fields);
    // The stamp comes first, then the caller's fields: the bytes the stores and memoResult wrote by hand.
    expect((await readFile(path)).equals(serialize({ version: "v1", ...fields }))).toBe(true);
    const back = await readStampedFile<typeof fields>(path, "version", "v1");
    expect(back?.inputs).toBe("abc");
    expect(back?.value?.mean).toBeNaN();
    expect(back?.value?.list).toEqual([Number.POSITIVE_INFINITY]);
    expect(Object.hasOwn(back!.value!, "missing")).toBe(true);
    // Written atomically: no temporary file left beside it.
    expect(await readdir(join(dir, "sub"))).toEqual(["x.v8"]);
    // A field named like the stamp would make the file pass for another stamp's: refused.
    await expect(writeStampedFile(path, "version", "v1", { version: "v2" })).rejects.toThrow(/stamp's field/);

    expect(await readStampedFile(path, "version", "v2")).toBeUndefined();
    expect(await readStampedFile(path, "settings", "v1")).toBeUndefined();
    await writeFile(path, "torn");
    expect(await readStampedFile(path, "version", "v1")).toBeUndefined();
    await writeFile(path, serialize(null));
    expect(await readStampedFile(path, "version", "v1")).toBeUndefined();
    await writeFile(path, serialize("v1"));
    expect(await readStampedFile(path, "version", "v1")).toBeUndefined();
  });

  it("memoResult keeps its file format ({settings, inputs, value}) and reuses only under the same inputs and settings", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-stamped-memo-"));
    let calls = 0;
    const compute = () => ({ n: ++calls });
    expect(await memoResult(dir, ["probe", "cb"], { a: 1 }, "in1", compute)).toEqual({ value: { n: 1 }, reused: false });
    const file = deserialize(await readFile(memoPath(dir, ["probe", "cb"]))) as Record<string, unknown>;
    expect(Object.keys(file)).toEqual(["settings", "inputs", "value"]);
    expect(file.inputs).toBe("in1");
    expect(await memoResult(dir, ["probe", "cb"], { a: 1 }, "in1", compute)).toEqual({ value: { n: 1 }, reused: true });
    expect(await memoResult(dir, ["probe", "cb"], { a: 1 }, "in2", compute)).toEqual({ value: { n: 2 }, reused: false });
    expect(await memoResult(dir, ["probe", "cb"], { a: 2 }, "in2", compute)).toEqual({ value: { n: 3 }, reused: false });
  });
});
