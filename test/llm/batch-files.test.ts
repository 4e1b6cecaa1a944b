import { afterEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requestLine, writeRequestFiles, type BatchRequestLine } from "../../src/llm/batch/files.js";
import { batchResults } from "../../src/llm/batch/results.js";
import { CollectedReplies } from "../../src/llm/batch/collected.js";
import type { CachedReply } from "../../src/llm/cache.js";

let dir: string | undefined;
afterEach(async () => dir && (await rm(dir, { recursive: true, force: true })));

const system = "You code turns. ".repeat(200) + 'quotes " and \\ and \n newlines and émojis 🎉';
const line = (i: number): BatchRequestLine => ({
  key: `k${i}`,
  body: {
    model: "m",
    messages: [
      { role: "system", content: system },
      { role: "user", content: `turn ${i} «${"x".repeat(i % 7)}»` },
    ],
    temperature: 0,
    max_tokens: 400,
  },
});

describe("batch request files", () => {
  it("serialises each line exactly as JSON.stringify would, long system prompt included", () => {
    for (const i of [0, 1, 5]) {
      const l = line(i);
      expect(requestLine(l)).toBe(JSON.stringify({ custom_id: l.key, method: "POST", url: "/v1/chat/completions", body: l.body }) + "\n");
    }
  });

  it("splits by requests and by bytes, never passing either limit, losing or reordering nothing", async () => {
    dir = await mkdtemp(join(tmpdir(), "batch-files-"));
    // Lines of one size (i % 7 === 0: the same user content length), so the split is predictable.
    const lines = Array.from({ length: 25 }, (_, i) => ({ ...line(0), key: `k${String(i).padStart(2, "0")}` }));
    const one = Buffer.byteLength(requestLine(lines[0]));
    const maxBytes = one * 4 + 10;
    const files = await writeRequestFiles(lines, dir, "t", { maxRequests: 6, maxBytes });
    expect(files.map((f) => f.keys.length)).toEqual([4, 4, 4, 4, 4, 4, 1]);
    for (const f of files) {
      expect((await stat(f.path)).size).toBe(f.bytes);
      expect(f.bytes).toBeLessThanOrEqual(maxBytes);
    }
    const text = (await Promise.all(files.map((f) => readFile(f.path, "utf8")))).join("");
    expect(text).toBe(lines.map(requestLine).join(""));
    const byCount = await writeRequestFiles(lines, dir, "c", { maxRequests: 10, maxBytes: 1e9 });
    expect(byCount.map((f) => f.keys.length)).toEqual([10, 10, 5]);
  });

  it("writes the same bytes, and hashes them, whatever the write buffer's size: lines that fill it, pass it, or are larger than it", async () => {
    dir = await mkdtemp(join(tmpdir(), "batch-files-"));
    const lines = Array.from({ length: 40 }, (_, i) => line(i));
    const expected = lines.map(requestLine);
    const one = Buffer.byteLength(expected[0]);
    for (const chunkBytes of [64, Math.floor(one * 1.5), one * 3 + 17, one * 10, 8 << 20]) {
      const files = await writeRequestFiles(lines, dir, `b${chunkBytes}`, { maxRequests: 7, maxBytes: one * 5 }, { chunkBytes });
      const texts = await Promise.all(files.map((f) => readFile(f.path, "utf8")));
      expect(texts.join(""), `buffer of ${chunkBytes} bytes`).toBe(expected.join(""));
      for (const [i, f] of files.entries()) {
        expect(
          texts[i]
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l).custom_id),
        ).toEqual(f.keys);
        expect(Buffer.byteLength(texts[i])).toBe(f.bytes);
        // The hash taken while writing is the hash of the bytes on disk (it tags the batch).
        expect(f.sha256).toBe(createHash("sha256").update(texts[i]).digest("hex"));
      }
    }
  });

  it("refuses a single request larger than a whole file may be", async () => {
    dir = await mkdtemp(join(tmpdir(), "batch-files-"));
    await expect(writeRequestFiles([line(0)], dir, "t", { maxRequests: 10, maxBytes: 100 })).rejects.toThrow(
      /request for k0 alone is \d+ bytes, over the 100-byte limit/,
    );
  });
});

/** Read lines into `collected` as the collect does: replies kept in `cache`, the rest held. */
async function read(lines: string[], label: string, collected: CollectedReplies, cache: Map<string, CachedReply>): Promise<string[]> {
  const problems: string[] = [];
  for await (const [key, answer] of batchResults(lines, label, problems)) {
    if (collected.add(key, answer) === "new" && answer.ok && answer.finishReason !== "length") cache.set(key, { ...answer, receivedAt: "now" });
  }
  return problems;
}

describe("batch output and error files", () => {
  it("reads replies, error lines and non-200 responses; names unreadable lines", async () => {
    const cache = new Map<string, CachedReply>();
    const answers = new CollectedReplies(async (key) => cache.get(key), [{ requests: ["a", "b", "c", "d", "e"], why: "the batch expired" }]);
    const ok = (id: string, content: string, finish = "stop") =>
      JSON.stringify({
        id: "r",
        custom_id: id,
        response: {
          status_code: 200,
          body: { model: "m-1", choices: [{ message: { content }, finish_reason: finish }], usage: { prompt_tokens: 10, completion_tokens: 2 } },
        },
        error: null,
      });
    const problems = await read(
      [
        ok("a", '{"code":"x"}'),
        JSON.stringify({ custom_id: "b", response: { status_code: 429, body: { error: { message: "slow down" } } }, error: null }),
        JSON.stringify({ custom_id: "c", response: null, error: { code: "batch_expired", message: "too late" } }),
        "{torn",
        JSON.stringify({ response: null }),
        "",
        ok("e", '{"code":"cut', "length"),
        ok("z", '{"code":"not ours"}'),
      ],
      "out.jsonl",
      answers,
      cache,
    );
    expect(problems).toEqual(["out.jsonl line 4: not JSON", "out.jsonl line 5: no custom_id"]);
    // Replies are kept in the cache, not held; a reply cut off at max tokens is held (the cache does not keep it).
    expect([...cache.keys()]).toEqual(["a"]);
    expect(await answers.get("a")).toEqual({
      ok: true,
      text: '{"code":"x"}',
      model: "m-1",
      usage: { promptTokens: 10, completionTokens: 2 },
      finishReason: "stop",
    });
    expect(await answers.get("b")).toEqual({ ok: false, message: "status 429: slow down" });
    expect(await answers.get("c")).toEqual({ ok: false, message: "batch_expired: too late" });
    expect(await answers.get("d")).toEqual({ ok: false, message: "the batch expired" });
    expect(await answers.get("e")).toMatchObject({ ok: true, finishReason: "length" });
    expect(await answers.get("z")).toBeUndefined();
    expect(["a", "b", "c", "d", "e"].map((k) => answers.answered(k))).toEqual([true, false, false, false, true]);
    // An error line never overwrites a reply already read for the same request.
    await read([JSON.stringify({ custom_id: "a", response: null, error: { code: "x", message: "y" } })], "err.jsonl", answers, cache);
    expect((await answers.get("a"))?.ok).toBe(true);
  });
});

describe("the requests being collected", () => {
  it("finds each of many keys and no other; a request in two batches keeps the first batch's why", async () => {
    const key = (i: number) => createHash("sha256").update(String(i)).digest("hex");
    const first = Array.from({ length: 500 }, (_, i) => key(i));
    const second = Array.from({ length: 500 }, (_, i) => key(i + 400));
    const answers = new CollectedReplies(
      async () => undefined,
      [
        { requests: first, why: "first expired" },
        { requests: second, why: "second expired" },
      ],
    );
    for (let i = 0; i < 900; i++) expect(await answers.get(key(i))).toEqual({ ok: false, message: i < 500 ? "first expired" : "second expired" });
    for (let i = 900; i < 1000; i++) expect(await answers.get(key(i))).toBeUndefined();
    expect(answers.own(key(450))).toBe(key(450));
    expect(answers.add(key(450), { ok: false, message: "status 500" })).toBe("held");
    expect(answers.add(key(450), { ok: true, text: "{}", model: "m", usage: { promptTokens: 1, completionTokens: 1 } })).toBe("new");
    expect(answers.answered(key(450))).toBe(true);
    expect(answers.answered(key(451))).toBe(false);
    expect(answers.add(key(2000), { ok: true, text: "{}", model: "m", usage: { promptTokens: 1, completionTokens: 1 } })).toBe("ignored");
  });
});
