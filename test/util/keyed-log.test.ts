import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { serialize } from "node:v8";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openKeyedLog } from "../../src/util/keyed-log.js";
import { ownWrites, writtenSince } from "../../src/util/known-bytes.js";

describe("a keyed log", () => {
  it("appends the entries a save adds, noted as this process's own write, and reads them back", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "colloquy-keyed-log-")), "cache.v8");
    const first = await openKeyedLog<number>(path, "v1");
    await first.save(new Map([["a", 1]]), ["a"]);
    const size = (await stat(path)).size;
    const before = ownWrites();
    const second = await openKeyedLog<number>(path, "v1");
    await second.save(new Map([...second.stored, ["b", Number.NaN]]), ["b"]);
    // Appended (the file grew from its bytes as they were), and known to have been written.
    expect((await stat(path)).size).toBeGreaterThan(size);
    expect(writtenSince(path, before)).toBe(true);
    expect([...(await openKeyedLog<number>(path, "v1")).stored]).toEqual([
      ["a", 1],
      ["b", Number.NaN],
    ]);
  });

  it("brings back every kind of typed array and Buffer as it was kept, in place and aligned, with the values around them", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "colloquy-keyed-log-")), "views.v8");
    const shared = new Int32Array([4, 5]);
    const value = {
      bytes: Buffer.from("héllo"),
      odd: new Uint8Array([1, 2, 3]),
      i8: new Int8Array([-1, 2]),
      clamped: new Uint8ClampedArray([0, 255]),
      i16: new Int16Array([-300, 300]),
      u16: new Uint16Array([65535]),
      i32: new Int32Array([-7, 1 << 30, 5]),
      u32: new Uint32Array([4294967295]),
      f32: new Float32Array([0.5]),
      f64: new Float64Array([Math.PI, Number.NaN, -0, Number.POSITIVE_INFINITY]),
      big: new BigInt64Array([-(2n ** 63n)]),
      ubig: new BigUint64Array([2n ** 64n - 1n]),
      // A view of part of a larger buffer keeps only its own bytes.
      slice: new Float64Array(new Float64Array([1, 2, 3, 4]).buffer, 8, 2),
      empty: new Int32Array(0),
      nested: [{ again: new Int32Array([9]) }, new Map([["m", new Float64Array([1.5])]])],
      plain: { n: 1, s: "x", u: undefined },
      twice: [shared, shared],
    };
    const first = await openKeyedLog<typeof value>(path, "v1");
    await first.save(new Map([["a", value]]), ["a"]);
    const second = await openKeyedLog<typeof value>(path, "v1");
    await second.save(new Map([...second.stored, ["b", { ...value, i32: new Int32Array([1, 2]) }]]), ["b"]);
    const back = (await openKeyedLog<typeof value>(path, "v1")).stored;
    const a = back.get("a")!;
    expect(a).toEqual(value);
    expect(Buffer.isBuffer(a.bytes)).toBe(true);
    expect(a.odd).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer(a.odd)).toBe(false);
    expect(Object.is(a.f64[2], -0)).toBe(true);
    expect(a.slice).toEqual(new Float64Array([2, 3]));
    expect(Object.hasOwn(a.plain, "u")).toBe(true);
    // One view met twice is one view, as v8.deserialize gives it.
    expect(a.twice[0]).toBe(a.twice[1]);
    expect(back.get("b")!.i32).toEqual(new Int32Array([1, 2]));
    // In place: views into the bytes read, each at an offset its element size divides.
    for (const view of [a.f64, a.big, a.i32, back.get("b")!.f64]) {
      expect(view.buffer.byteLength).toBeGreaterThan(view.byteLength + 64);
      expect(view.byteOffset % 8).toBe(0);
    }
  });

  it("treats a file of another layout (v8.serialize's frames), a torn frame and a foreign stamp as nothing kept, and writes it anew", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-keyed-log-"));
    const path = join(dir, "old.v8");
    const head = Buffer.alloc(4);
    const payload = serialize({ stamp: "v1" });
    head.writeUInt32LE(payload.length);
    await writeFile(path, Buffer.concat([head, payload]));
    const old = await openKeyedLog<number>(path, "v1");
    expect(old.stored.size).toBe(0);
    await old.save(new Map([["a", 1]]), ["a"]);
    expect([...(await openKeyedLog<number>(path, "v1")).stored]).toEqual([["a", 1]]);
    // A torn tail: the frames before it stand.
    const log = await openKeyedLog<number>(path, "v1");
    await log.save(new Map([...log.stored, ["b", 2]]), ["b"]);
    const whole = await readFile(path);
    await writeFile(path, whole.subarray(0, whole.length - 5));
    expect([...(await openKeyedLog<number>(path, "v1")).stored]).toEqual([["a", 1]]);
    // Another stamp: nothing.
    expect((await openKeyedLog<number>(path, "v2")).stored.size).toBe(0);
  });

  it("refuses to keep a view of a kind it cannot bring back", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "colloquy-keyed-log-")), "dv.v8");
    const log = await openKeyedLog<unknown>(path, "v1");
    await expect(log.save(new Map([["a", new DataView(new ArrayBuffer(4))]]), ["a"])).rejects.toThrow(/DataView/);
  });

  /** A log holding `value` under "a", and where its entry's frame starts (after the magic and the stamp frame). */
  async function oneEntry(value: unknown): Promise<{ path: string; bytes: Buffer; entry: number }> {
    const path = join(await mkdtemp(join(tmpdir(), "colloquy-keyed-log-")), "crafted.v8");
    await (await openKeyedLog<unknown>(path, "v1")).save(new Map([["a", value]]), ["a"]);
    const bytes = await readFile(path);
    const stampLength = bytes.readUInt32LE(8);
    return { path, bytes, entry: 8 + 8 + stampLength + (-stampLength & 7) };
  }

  it("takes a frame whose header claims more than the file holds as torn, however large the claim (no endless loop, no entry)", async () => {
    const { path, bytes, entry } = await oneEntry(1);
    for (const length of [0xfffffff1, 0xfffffff8, 0xfffffff9, 0xffffffff]) {
      const header = Buffer.alloc(8);
      header.writeUInt32LE(length, 0);
      const payload = serialize({ key: "evil", value: 42 });
      await writeFile(path, Buffer.concat([bytes.subarray(0, entry), header, payload, Buffer.alloc(-payload.length & 7)]));
      expect((await openKeyedLog<number>(path, "v1")).stored.size).toBe(0);
    }
  });

  it("takes a view the table places off the grid, over the table or cut short as a damaged frame, not as data", async () => {
    const { path, bytes, entry } = await oneEntry({ f: new Float64Array([1, 2]) });
    const payloadLength = bytes.readUInt32LE(entry);
    const table = entry + 8 + payloadLength + (-payloadLength & 7);
    expect(bytes.readUInt32LE(table)).toBe(1);
    const damaged = async (at: number, value: number) => {
      const copy = Buffer.from(bytes);
      copy.writeUInt32LE(value, at);
      await writeFile(path, copy);
      return (await openKeyedLog<{ f: Float64Array }>(path, "v1")).stored;
    };
    expect((await damaged(table + 12, 16)).get("a")!.f).toEqual(new Float64Array([1, 2]));
    expect((await damaged(table + 12, 12)).size).toBe(0);
    expect((await damaged(table + 8, 20)).size).toBe(0);
    expect((await damaged(table + 8, 0)).size).toBe(0);
    expect((await damaged(entry + 4, bytes.readUInt32LE(entry + 4) - 4)).size).toBe(0);
  });
});
