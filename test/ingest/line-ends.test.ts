import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importFiles } from "../../src/ingest/registry.js";

/** Files whose only line ends are lone "\r" (classic Mac, some exporters). */
const files: Record<string, { text: string; format: string; turns: [string, string][] }> = {
  "interview.txt": {
    text: "Ann: hi there\rBob: hello\rAnn: shall we?\rBob: yes\r",
    format: "plain",
    turns: [
      ["ann", "hi there"],
      ["bob", "hello"],
      ["ann", "shall we?"],
      ["bob", "yes"],
    ],
  },
  "call.vtt": {
    text: "WEBVTT\r\r00:00:01.000 --> 00:00:02.000\r<v Ann>hi there\r\r00:00:03.000 --> 00:00:04.000\r<v Bob>hello\r",
    format: "vtt",
    turns: [
      ["ann", "hi there"],
      ["bob", "hello"],
    ],
  },
};

describe("lone-CR line ends", () => {
  it("are detected and read like any other line end", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-cr-"));
    for (const [name, { text, format, turns }] of Object.entries(files)) {
      await writeFile(join(dir, name), text);
      const [file] = await importFiles([join(dir, name)]);
      expect(file.error, name).toBeUndefined();
      expect(file.format).toBe(format);
      expect(file.result!.sessions[0].turns.map((t) => [t.speaker, t.text])).toEqual(turns);
    }
  });
});
