import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { directoryInput, fileInput, textInput } from "../../../src/ingest/input.js";
import { ImportError } from "../../../src/ingest/types.js";

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

describe("import inputs", () => {
  it("fileInput strips a BOM and streams lines with \\r\\n, \\n and a final line without terminator", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-input-"));
    try {
      const path = join(dir, "a.txt");
      await writeFile(path, "\ufeffÄrger\r\nb\n\nlast");
      const input = fileInput(path);
      expect(input.kind).toBe("file");
      expect(await input.readText()).toBe("Ärger\r\nb\n\nlast");
      expect(await collect(input.lines())).toEqual(["Ärger", "b", "", "last"]);
      await writeFile(path, "x\n");
      expect(await collect(fileInput(path).lines())).toEqual(["x"]);
      // A folder is not text: reading it is an ImportError naming it.
      await expect(collect(directoryInput(dir).lines())).rejects.toThrow(`${dir}: is a folder, not a text file`);
      await expect(directoryInput(dir).readText()).rejects.toBeInstanceOf(ImportError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("textInput splits lines exactly like fileInput", async () => {
    expect(await collect(textInput("t", "\ufeffa\r\nb\n\nc\rd\n").lines())).toEqual(["a", "b", "", "c", "d"]);
    expect(await textInput("t", "\ufeffa").readText()).toBe("a");
  });

  it("a missing file is an ImportError naming it", async () => {
    await expect(fileInput("/nonexistent/x.json").readText()).rejects.toThrow(
      new ImportError({ file: "/nonexistent/x.json", problem: "file not found", expected: "a readable text file" }).message,
    );
    await expect(collect(fileInput("/nonexistent/x.json").lines())).rejects.toBeInstanceOf(ImportError);
  });
});
