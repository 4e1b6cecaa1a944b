import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parsePlain, plainImporter } from "../../src/ingest/formats/plain.js";
import { ImportError } from "../../src/ingest/types.js";
import { assertNothingDropped } from "../support/coverage.js";

const read = (name: string) => readFile(new URL(`../../fixtures/transcripts/plain/${name}`, import.meta.url), "utf8");

describe("plain importer", () => {
  it("reads Speaker: text with continuation lines, keeps a once-only `Note:` label as text and warns", async () => {
    const text = await read("interview.txt");
    const result = parsePlain("interview.txt", text);
    const s = result.sessions[0]!;
    expect(s.metadata!.preamble).toBe("Interview 7 - remote, 2024-02-12\nTranscribed by hand; [inaudible] marks unclear audio.");
    expect(s.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["interviewer", "Thanks for taking the time. How did you use the assistant?"],
      ["participant", "Mostly for drafting emails.\nSometimes for summaries too.\nNote: I never used it for code."],
      ["interviewer", "Why not?"],
      ["participant", "I didn't trust it [inaudible] with that."],
      ["interviewer", "Fair enough."],
    ]);
    expect(result.warnings).toEqual([expect.stringMatching(/^interview\.txt:7: "Note:" looks like a speaker label/)]);
    // Speaker labels are markup: the name is kept as the participant.
    assertNothingDropped(text.replace(/^(Interviewer|Participant): /gm, ""), result);
  });

  it("reads Otter-style `Name  0:03` header lines (names with particles) with text on the next lines", async () => {
    const text = await read("otter.txt");
    const s = parsePlain("otter.txt", text).sessions[0]!;
    expect(s.participants.map((p) => p.name)).toEqual(["Alice Smith", "Bob de Vries"]);
    expect(s.turns.map((t) => [t.speaker, t.timestamp, t.start, t.text])).toEqual([
      ["alice-smith", "0:03", 3, "Okay, let's get started. First item: the launch date."],
      ["bob-de-vries", "0:15", 15, "I think we can ship on Friday.\nIf QA agrees."],
      ["alice-smith", "1:02", 62, "Great. Moving on."],
    ]);
  });

  it("reads Rev-style `Speaker 1 (00:00):` headers, text on the same or the next line", async () => {
    const s = parsePlain("rev.txt", await read("rev.txt")).sessions[0]!;
    expect(s.turns.map((t) => [t.speaker, t.start, t.text])).toEqual([
      ["speaker-1", 0, "Welcome to the podcast."],
      ["speaker-2", 4, "Thanks for having me. Ratio: about 3:1 in favour."],
      ["speaker-1", 4205, "And we're back."],
    ]);
  });

  it("reads `[00:01:23] Name: text` and marks --agents as AI", async () => {
    const s = parsePlain("timed.txt", await read("timed.txt"), { agents: ["ChatGPT"] }).sessions[0]!;
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([
      ["Moderator", "human"],
      ["ChatGPT", "ai"],
    ]);
    expect(s.turns.map((t) => [t.start, t.text])).toEqual([
      [1, "Let's begin."],
      [4, "Hello everyone, I'm the assistant."],
      [83, "Thanks.\nAnd one more thing."],
    ]);
  });

  it("reads Otter's Markdown export (`**Name**  0:12` headers) and moves its `Transcribed by https://otter.ai` footer to metadata", async () => {
    const text = await read("otter-markdown-bold.md");
    const result = parsePlain("otter-markdown-bold.md", text);
    const s = result.sessions[0]!;
    expect(s.participants.map((p) => p.name)).toEqual(["Grace Ho", "Felix", "Unknown Speaker"]);
    expect(s.turns.map((t) => [t.speaker, t.timestamp, t.text])).toEqual([
      ["grace-ho", "0:00", "Welcome to the show. Today we talk about note-taking apps."],
      ["felix", "0:12", "Thanks for having me."],
      ["grace-ho", "0:15", "Let's start: which app do you use?"],
      ["felix", "0:21", "Mostly paper, honestly."],
      ["unknown-speaker", "1:02", "Sorry, wrong room."],
    ]);
    expect(s.metadata!.transcribedBy).toBe("Transcribed by https://otter.ai");
    expect(s.turns.some((t) => t.text.includes("otter.ai"))).toBe(false);
    expect(result.warnings).toEqual([]);
  });

  it("moves a `Transcribed by https://…` line to metadata only as the file's footer (its last non-blank lines)", () => {
    const footer = parsePlain("footer.txt", "Ana: Hello.\nBen: Hi.\n\nTranscribed by https://otter.ai\n\n");
    const s = footer.sessions[0]!;
    expect(s.metadata!.transcribedBy).toBe("Transcribed by https://otter.ai");
    expect(s.turns.map((t) => t.text)).toEqual(["Hello.", "Hi."]);
  });

  it("keeps a `Transcribed by https://…` line said mid-transcript as speech", () => {
    const text = "Ana: Where did the notes come from?\nBen: The header said\nTranscribed by https://otter.ai\nAna: Right.\nBen: Yes.\n";
    const result = parsePlain("mid.txt", text);
    const s = result.sessions[0]!;
    expect(s.metadata?.transcribedBy).toBeUndefined();
    expect(s.turns.map((t) => t.text)).toEqual(["Where did the notes come from?", "The header said\nTranscribed by https://otter.ai", "Right.", "Yes."]);
    assertNothingDropped(text.replace(/^(Ana|Ben): /gm, ""), result);
  });

  it("reads Descript-style Markdown (`[00:00:09] **Name:** text`), front matter and headings kept as preamble", async () => {
    const s = parsePlain("descript-markdown.md", await read("descript-markdown.md")).sessions[0]!;
    expect(s.metadata!.preamble).toBe("---\ntitle: Episode 12\n---\n\n# Transcript");
    expect(s.turns.map((t) => [t.speaker, t.start, t.text])).toEqual([
      ["nadia", 0, "Welcome back. Today we test an AI pair programmer."],
      ["copilot", 9, "Hello! I can suggest code as you type."],
      ["nadia", 15, "Let's see.\nIt proposes a loop here."],
      ["tom-berg", 31, "That loop is off by one."],
      ["nadia", 40, "Good catch."],
    ]);
    // Bold labels without a time follow the plain rules: a one-off bold label stays text.
    const bold = parsePlain("x.md", "**Ann:** hi\n**Bob:** hello\n**Ann:** so\n**Note:** bold aside\n**Bob:** ok").sessions[0]!;
    expect(bold.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["ann", "hi"],
      ["bob", "hello"],
      ["ann", "so\n**Note:** bold aside"],
      ["bob", "ok"],
    ]);
  });

  it("does not take URLs, lower-case phrases or long sentences before a colon for speakers", () => {
    const text = "Ann: see https://example.org\nBob: ok\nthe plan: simple\nAnn: Remember this very long sentence before the colon: it is text\nBob: fine";
    const s = parsePlain("x.txt", text).sessions[0]!;
    expect(s.participants.map((p) => p.name)).toEqual(["Ann", "Bob"]);
    expect(s.turns[1]!.text).toBe("ok\nthe plan: simple");
  });

  it("keeps speakers who each speak once in a two-line file", () => {
    expect(parsePlain("x.txt", "Ann: hi\nBob: hello").sessions[0]!.turns).toHaveLength(2);
  });

  it("throws an ImportError when no line names a speaker", () => {
    expect(() => parsePlain("x.txt", "just prose, no speakers at all.\nsecond line")).toThrow(ImportError);
  });

  it("detects plain transcripts", async () => {
    expect(plainImporter.detect("otter.txt", await read("otter.txt"))).toBeGreaterThan(0.5);
    expect(plainImporter.detect("interview.txt", await read("interview.txt"))).toBeGreaterThan(0.4);
    expect(plainImporter.detect("x.txt", "")).toBe(0);
    expect(plainImporter.detect("otter-markdown-bold.md", await read("otter-markdown-bold.md"))).toBeGreaterThan(0.5);
    expect(plainImporter.detect("descript-markdown.md", await read("descript-markdown.md"))).toBeGreaterThan(0.5);
  });
});

describe("plain importer streaming", () => {
  it("gives the same result through the streaming Importer as the in-memory parser", async () => {
    const { textInput } = await import("../../src/ingest/input.js");
    for (const name of ["interview.txt", "otter.txt", "rev.txt", "timed.txt", "otter-markdown-bold.md", "descript-markdown.md"]) {
      const text = await read(name);
      expect(await plainImporter.parse(textInput(name, text), {})).toEqual(parsePlain(name, text));
    }
  });
});

describe("plain speakers who talk once", () => {
  it("a name-like label is a speaker even on one line: nobody's words move into another turn", () => {
    const text = "Moderator: Welcome.\nAna: Hi.\nGPT-4: Hello, I am the assistant.\nDr. Lee: Thanks.\nModerator: Let's start.\nBo: Sure.\n";
    const result = parsePlain("six.txt", text);
    expect(result.sessions[0]!.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["moderator", "Welcome."],
      ["ana", "Hi."],
      ["gpt-4", "Hello, I am the assistant."],
      ["dr.-lee", "Thanks."],
      ["moderator", "Let's start."],
      ["bo", "Sure."],
    ]);
    expect(result.warnings).toEqual([]);
  });

  it("names in scripts without case (Chinese, Arabic, Korean) are speakers: their words stay in their own turns", () => {
    const text = "Alice: hi\nBob: hello\n王芳: 你好\nAlice: ok\nمحمد: مرحبا\n김민준: 네\nBob: bye\n";
    const result = parsePlain("cjk.txt", text);
    expect(result.sessions[0]!.turns.map((t) => [result.sessions[0]!.participants.find((p) => p.id === t.speaker)!.name, t.text])).toEqual([
      ["Alice", "hi"],
      ["Bob", "hello"],
      ["王芳", "你好"],
      ["Alice", "ok"],
      ["محمد", "مرحبا"],
      ["김민준", "네"],
      ["Bob", "bye"],
    ]);
    expect(result.warnings).toEqual([]);
  });

  it("a full-width colon (Chinese and Japanese transcripts) ends a speaker label, with or without a space after it", () => {
    const text = "主持人：大家好\n王芳：你好，我先说。\n李雷： 好的\n王芳：会议在10:30开始\n";
    const result = parsePlain("zh.txt", text);
    const s = result.sessions[0]!;
    expect(s.turns.map((t) => [s.participants.find((p) => p.id === t.speaker)!.name, t.text])).toEqual([
      ["主持人", "大家好"],
      ["王芳", "你好，我先说。"],
      ["李雷", "好的"],
      ["王芳", "会议在10:30开始"],
    ]);
    expect(plainImporter.detect("zh.txt", text)).toBeGreaterThan(0.5);
  });

  it("an ASCII colon with no space after a name in a script without case (田中:はい) ends a speaker label; a time or a URL after it does not", () => {
    const text = "田中:はい、始めましょう。\n佐藤:了解です。\n田中:会議は10:30からです。\n佐藤:資料はhttp://example.com/aにあります。\n";
    const s = parsePlain("ja-ascii.txt", text).sessions[0]!;
    expect(s.turns.map((t) => [s.participants.find((p) => p.id === t.speaker)!.name, t.text])).toEqual([
      ["田中", "はい、始めましょう。"],
      ["佐藤", "了解です。"],
      ["田中", "会議は10:30からです。"],
      ["佐藤", "資料はhttp://example.com/aにあります。"],
    ]);
    // Latin names still need the space: "Note:this" and "10:30" stay text.
    expect(parsePlain("l.txt", "Ann: hi\nBob: at 10:30\nNote:this\nAnn: ok").sessions[0]!.turns.map((t) => t.text)).toEqual([
      "hi",
      "at 10:30\nNote:this",
      "ok",
    ]);
    // A time after a case-less label stays text of the turn ("时间:10:30" is no speaker).
    const zh = parsePlain("zh-time.txt", "王芳:我们开始吧。\n时间:10:30\n李雷:好的。\n王芳:嗯。").sessions[0]!;
    expect(zh.turns.map((t) => t.text)).toEqual(["我们开始吧。\n时间:10:30", "好的。", "嗯。"]);
  });

  it("in a script without case, a clause before a full-width colon or a time (10：30) stays text of the turn", () => {
    const text = "王芳：我想补充两点。\n第一点，预算：不能超过五万。\n第二点，时间安排：三月完成。\n李明：会议定在\n10：30 开始。\n王芳：好。\n";
    const s = parsePlain("zh2.txt", text).sessions[0]!;
    expect(s.turns.map((t) => [s.participants.find((p) => p.id === t.speaker)!.name, t.text])).toEqual([
      ["王芳", "我想补充两点。\n第一点，预算：不能超过五万。\n第二点，时间安排：三月完成。"],
      ["李明", "会议定在\n10：30 开始。"],
      ["王芳", "好。"],
    ]);
  });

  it("--humans and --agents names are speakers even when they do not look like names (a handle, a bracketed note)", () => {
    const text = "Alice: hi\nuser_42: hello\nAlice: ok\nuser_42: sure\nP3 [muted]: hear me?\nAlice: yes\n";
    // Without the flag, the lines stay in Alice's turns, and the warning names the label and the fix.
    const unnamed = parsePlain("h.txt", text);
    expect(unnamed.sessions[0]!.turns.map((t) => t.text)).toEqual(["hi\nuser_42: hello", "ok\nuser_42: sure\nP3 [muted]: hear me?", "yes"]);
    expect(unnamed.warnings).toEqual([
      'h.txt:2: "user_42:" starts 2 lines but does not look like a name, so they were kept as text of the turns before them; if "user_42" is a speaker, import again with --humans "user_42" (or --agents)',
    ]);
    const turns = parsePlain("h.txt", text, { humans: ["user_42", "P3 [muted]"] }).sessions[0]!.turns;
    expect(turns.map((t) => [t.speaker, t.text])).toEqual([
      ["alice", "hi"],
      ["user_42", "hello"],
      ["alice", "ok"],
      ["user_42", "sure"],
      ["p3-muted", "hear me?"],
      ["alice", "yes"],
    ]);
  });

  it("no label warning for list items, JSON keys or quotes in an answer: a speaker label starts the line with a letter or digit", () => {
    const text =
      'User: compare them\nAssistant: Here.\n- pros: cheap\n  "name": "x",\n> q: why\nUser: and?\nAssistant: Also.\n- pros: fast\n  "name": "y",\n> q: how\n';
    expect(parsePlain("ai.txt", text, { agents: ["Assistant"] }).warnings).toEqual([]);
  });

  it("evidence keeps a once-only label as text: a note word, or an untimed label among timed speakers; --humans makes it a speaker", () => {
    const notes = parsePlain("n.txt", "Ann: hi\nBob: hello\nAnn: so\nUpdate: we moved the date\nStep 2: plan\nBob: ok").sessions[0]!;
    expect(notes.turns.map((t) => t.text)).toEqual(["hi", "hello", "so\nUpdate: we moved the date\nStep 2: plan", "ok"]);
    // The same in Chinese and Japanese, where no capital letter tells a name from a word.
    const zh = parsePlain("zh.txt", "王芳：我们开始吧。\n李雷：好的。\n王芳：预算有变化。\n注意：周五截止。\n李雷：明白。").sessions[0]!;
    expect(zh.turns.map((t) => t.text)).toEqual(["我们开始吧。", "好的。", "预算有变化。\n注意：周五截止。", "明白。"]);
    expect(parsePlain("zh.txt", "王芳：我们开始吧。\n李雷：好的。\n注意：周五截止。\n李雷：明白。").warnings).toEqual([
      expect.stringMatching(/^zh\.txt:3: "注意：" looks like a speaker label/),
    ]);
    const ja = parsePlain("ja.txt", "田中：始めましょう。\n佐藤：はい。\n田中：備考：資料は後で送ります。\n備考：金曜日まで。\n佐藤：了解です。").sessions[0]!;
    expect(ja.turns.map((t) => t.text)).toEqual(["始めましょう。", "はい。", "備考：資料は後で送ります。\n備考：金曜日まで。", "了解です。"]);
    const timed = "[00:00:01] Ann: hi\n[00:00:04] Bob: hello\nCarla: a quick one\n[00:00:09] Ann: so";
    const kept = parsePlain("t.txt", timed);
    expect(kept.sessions[0]!.turns[1]!.text).toBe("hello\nCarla: a quick one");
    expect(kept.warnings).toEqual([expect.stringMatching(/^t\.txt:3: "Carla:" .* has no time stamp.*--humans "Carla"/)]);
    const rescued = parsePlain("t.txt", timed, { humans: ["Carla"] }).sessions[0]!;
    expect(rescued.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["ann", "hi"],
      ["bob", "hello"],
      ["carla", "a quick one"],
      ["ann", "so"],
    ]);
  });

  it("reads `**Name** [0:00]` header lines (Markdown bold speaker, bracketed time)", () => {
    const text = "# Call\n\n**Emma** [0:00]\nHi all.\nShall we?\n\n**Raj Patel** [0:07]\nYes.\n\n**Emma** [1:02] Next topic.\n";
    const s = parsePlain("call.md", text).sessions[0]!;
    expect(s.turns.map((t) => [t.speaker, t.start, t.text])).toEqual([
      ["emma", 0, "Hi all.\nShall we?"],
      ["raj-patel", 7, "Yes."],
      ["emma", 62, "Next topic."],
    ]);
    expect(plainImporter.detect("call.md", text)).toBeGreaterThan(0.5);
  });
});
