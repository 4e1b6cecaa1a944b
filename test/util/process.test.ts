import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { bootId, ownerRunning, ownerTag, taggedOwnerRunning } from "../../src/util/process.js";

/** The id of a process that has ended (as a kill -9 leaves it). */
const gone = () => spawnSync(process.execPath, ["-e", ""]).pid!;

describe("whether the owner of a file may still run", () => {
  it("a process of another machine is taken as running (what it may be writing is never removed)", () => {
    expect(ownerRunning({ pid: gone(), host: `not-${hostname()}` })).toBe(true);
  });

  it("on this machine: a gone pid is gone, a running one runs", () => {
    expect(ownerRunning({ pid: gone(), host: hostname(), boot: bootId() })).toBe(false);
    expect(ownerRunning({ pid: process.pid, host: hostname(), boot: bootId() })).toBe(true);
  });

  it.runIf(bootId() !== undefined)("on this machine, a process of an earlier boot is gone, even when its pid runs now", () => {
    expect(ownerRunning({ pid: process.pid, host: hostname(), boot: "an-earlier-boot" })).toBe(false);
  });

  it("the same rules hold for an owner named in a file name", () => {
    const [, host, boot] = ownerTag().split("~");
    expect(ownerTag().split("~")[0]).toBe(String(process.pid));
    expect(taggedOwnerRunning(`${gone()}~00000000~${boot}`)).toBe(host === "00000000" ? false : true);
    expect(taggedOwnerRunning(`${gone()}~${host}~${boot}`)).toBe(false);
    expect(taggedOwnerRunning(`${process.pid}~${host}~${boot}`)).toBe(true);
    // A bare pid (a name written before hosts were recorded) is this machine's.
    expect(taggedOwnerRunning(String(gone()))).toBe(false);
    if (bootId() !== undefined) expect(taggedOwnerRunning(`${process.pid}~${host}~12345678`)).toBe(false);
  });
});
