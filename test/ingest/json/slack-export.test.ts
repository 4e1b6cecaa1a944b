import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { slackExportImporter } from "../../../src/ingest/formats/slack-export.js";
import { directoryInput } from "../../../src/ingest/input.js";
import { ImportError } from "../../../src/ingest/types.js";
import { fixture, importFixture, speakerName } from "./helpers.js";

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function copyOfWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-slack-"));
  temps.push(dir);
  await cp(fixture("slack-export/workspace"), dir, { recursive: true });
  return dir;
}

describe("slack-export importer", () => {
  it("imports one session per channel with resolved names, mentions, threads, bots, files", async () => {
    const { sessions, result } = await importFixture(slackExportImporter, "slack-export/workspace");
    expect(sessions.map((s) => s.title)).toEqual(["#design-review", "#general"]);
    const general = sessions[1];
    expect(general.id).toBe("general");
    expect(general.metadata.channel).toMatchObject({ id: "C01GEN", name: "general", topic: "Launch planning" });
    expect(general.metadata.date).toBe("2024-03-04");
    // Names: real_name, else display_name, else handle; unknown ids from user_profile.
    expect(general.turns.map((_, i) => speakerName(general, i))).toEqual([
      "Maya Kowalski",
      "Atlas",
      "Jonas B.",
      "GitHub",
      "Maya Kowalski",
      "zoe",
      "Sam Ghost",
      "Maya Kowalski",
    ]);
    const kinds = Object.fromEntries(general.participants.map((p) => [p.name, p.kind]));
    // Without --agents every bot is an AI participant (documented choice).
    expect(kinds).toEqual({ "Maya Kowalski": "human", Atlas: "ai", "Jonas B.": "human", GitHub: "ai", zoe: "human", "Sam Ghost": "human" });
    // Mentions stay verbatim and become addressees.
    const first = general.turns[0];
    expect(first.text).toBe("Kick-off! <@U04ATLAS> can you summarise yesterday's notes for <@U02JONAS>?");
    expect(first.addressees).toEqual(["atlas", "jonas-b"]);
    // Threads: replies point at the parent turn, including a reply on the next day's file.
    expect(general.turns[1].metadata).toMatchObject({ thread: "1709546460.000200", parent: "t0000" });
    expect(general.turns[5].metadata).toMatchObject({ thread: "1709546460.000200", parent: "t0000" });
    expect(general.turns[6].metadata?.parent).toBeUndefined();
    // Times: ISO timestamp, start from the first imported message (the join before it is skipped).
    expect(first).toMatchObject({ timestamp: "2024-03-04T10:01:00.000Z", start: 0 });
    expect(general.turns[5].start).toBeCloseTo(86339.9999, 6); // microsecond-exact ts arithmetic
    // Edited messages keep the final text and record the edit.
    expect(general.turns[2].metadata?.edited).toEqual({ ts: "1709546530.000000", at: "2024-03-04T10:02:10.000Z", by: "U02JONAS" });
    // Bot attachment text kept in metadata; file shares are file turns with names.
    expect(JSON.stringify(general.turns[3].metadata?.attachments)).toContain("PR #42 merged: Add FR strings");
    expect(general.turns[4].type).toBe("file");
    expect((general.turns[4].metadata?.files as { name: string }[]).map((f) => f.name)).toEqual(["launch-checklist-v3.pdf", "timeline.png"]);
    expect(general.turns[7]).toMatchObject({ type: "system", metadata: { subtype: "channel_topic" } });
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        "#general: skipped 2 join/leave event(s)",
        expect.stringMatching(/#general: 1 thread repl/),
        expect.stringMatching(/channel "random" is listed but has no folder/),
      ]),
    );
    // Multi-line text with indentation, unicode, and <@U…|label> mentions are verbatim.
    expect(sessions[0].turns[0].text).toBe("Which logo do we ship?\n\n  A: round\n  B: square");
    expect(sessions[0].turns[1].addressees).toEqual(["jonas-b"]);
  });

  it("with --agents, only listed bots (or users) are ai and other bots are system", async () => {
    const { sessions } = await importFixture(slackExportImporter, "slack-export/workspace", { agents: ["Atlas", "U02JONAS"] });
    const kinds = Object.fromEntries(sessions[1].participants.map((p) => [p.name, p.kind]));
    expect(kinds).toMatchObject({ Atlas: "ai", GitHub: "system", "Jonas B.": "ai", "Maya Kowalski": "human" });
  });

  it("names the file and JSON path of a bad message, and the line of a JSON syntax error", async () => {
    const dir = await copyOfWorkspace();
    await writeFile(join(dir, "general", "2024-03-06.json"), '[{"type": "message", "user": "U01MAYA", "text": 42, "ts": "1709700000.000100"}]');
    await expect(slackExportImporter.parse(directoryInput(dir), {})).rejects.toThrow(
      `${join(dir, "general", "2024-03-06.json")}: $[0].text: found a number (42); expected the message text as a string`,
    );
    await writeFile(join(dir, "general", "2024-03-06.json"), '[\n{"type": "message", "ts": "1"},\n{"ts": }\n]');
    const error = await slackExportImporter.parse(directoryInput(dir), {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).line).toBe(3);
    await writeFile(join(dir, "general", "2024-03-06.json"), '[{"type": "message", "user": "U01MAYA", "text": "x", "ts": "yesterday"}]');
    await expect(slackExportImporter.parse(directoryInput(dir), {})).rejects.toThrow(/\$\[0\]\.ts: found a string \("yesterday"\); expected a Slack timestamp/);
    // A subtype or thread_ts that is an object (one without a usable toString: found by the property test) is named, not a crash.
    const odd = '{"toString": false}';
    for (const [key, where] of [
      ["subtype", /\$\[0\]\.subtype: found an object/],
      ["thread_ts", /\$\[0\]\.thread_ts: found an object.*expected the thread's Slack timestamp/],
    ] as const) {
      await writeFile(
        join(dir, "general", "2024-03-06.json"),
        `[{"type": "message", "user": "U01MAYA", "text": "x", "ts": "1709700000.000100", "${key}": ${odd}}]`,
      );
      const error = await slackExportImporter.parse(directoryInput(dir), {}).catch((e: unknown) => e);
      expect(error, key).toBeInstanceOf(ImportError);
      expect((error as ImportError).message, key).toMatch(where);
    }
  });

  it("rejects a folder that is not a Slack export", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-empty-"));
    temps.push(dir);
    await expect(slackExportImporter.parse(directoryInput(dir), {})).rejects.toThrow(ImportError);
    expect(slackExportImporter.detect(dir, "")).toBe(0);
    expect(slackExportImporter.detect(fixture("slack-export/workspace"), "")).toBeGreaterThan(0.9);
  });

  it("skips a channel folder with no messages and ignores non-daily files with a warning", async () => {
    const dir = await copyOfWorkspace();
    await cp(join(dir, "design-review"), join(dir, "quiet"), { recursive: true });
    await writeFile(join(dir, "quiet", "2024-03-05.json"), "[]");
    await writeFile(join(dir, "quiet", "canvas.md"), "# notes");
    const result = await slackExportImporter.parse(directoryInput(dir), {});
    expect(result.sessions.map((s) => s.id)).toEqual(["design-review", "general"]);
    expect(result.warnings.join("\n")).toMatch(/quiet.*not daily YYYY-MM-DD\.json logs \(canvas\.md\)/);
    expect(result.warnings.join("\n")).toMatch(/#quiet: no messages/);
  });
});

describe("slack-export importer: quirks of real exports", () => {
  it("file-comment-without-user: a legacy file_comment is the commenter's (comment.user); a message with no poster is kept, not fatal", async () => {
    const { sessions, result } = await importFixture(slackExportImporter, "slack-export/file-comment-without-user");
    const lab = sessions[0]!;
    expect(lab.turns).toHaveLength(4);
    expect(lab.turns.map((_, i) => speakerName(lab, i))).toEqual(["Ole Brandt", "Ria Mendes", "unknown speaker", "Ole Brandt"]);
    expect(lab.turns[1]!.metadata).toMatchObject({ subtype: "file_comment", userFrom: "comment.user", comment: { comment: "Step 3 needs a timer" } });
    expect(lab.turns[2]!.text).toBe("commented on a file: who wrote step 5?");
    expect(result.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/lab[\\/]2015-06-02\.json: \$\[2\]: message without "user".*unknown speaker/)]),
    );
  });

  it("bot-add-by-human: the person who adds or removes an integration stays human; only the bot's own posts are ai", async () => {
    const { sessions } = await importFixture(slackExportImporter, "slack-export/bot-add-by-human");
    const lab = sessions[0]!;
    expect(lab.turns.map((_, i) => speakerName(lab, i))).toEqual(["Kai Osei", "Kai Osei", "Helper", "Kai Osei"]);
    expect(Object.fromEntries(lab.participants.map((p) => [p.name, p.kind]))).toEqual({ "Kai Osei": "human", Helper: "ai" });
    expect(lab.turns[0]!.metadata).toMatchObject({ subtype: "bot_add", bot_link: expect.stringContaining("B22HELPER") });
  });

  it("bot-text-in-attachments: a bot post whose words are in attachments gets them as text, the structure kept in metadata", async () => {
    const { sessions } = await importFixture(slackExportImporter, "slack-export/bot-text-in-attachments");
    const lab = sessions[0]!;
    expect(lab.turns[1]!.text).toBe("Overnight batch report\nBatch 17 finished\n412 of 415 sessions coded\nFailed: 3\nDuration: 2 h 14 min");
    expect(lab.turns[1]!.metadata).toMatchObject({ textFrom: "attachments", attachments: [{ fallback: "Batch 17 finished: 412 of 415 sessions coded" }] });
    // An attachment with only a fallback: the fallback is the text.
    expect(lab.turns[2]!.text).toBe("Retry of the 3 failed sessions queued");
    expect(speakerName(lab, 1)).toBe("Batch Runner");
  });

  it("bot-named-by-raw-id: bots are named by bot_profile.name/username from any of their messages, not B… ids", async () => {
    const { sessions } = await importFixture(slackExportImporter, "slack-export/bot-named-by-raw-id");
    const lab = sessions[0]!;
    expect(lab.turns.map((_, i) => speakerName(lab, i))).toEqual(["Abe Lindqvist", "Scribe", "Scribe", "Mailer"]);
    expect(Object.fromEntries(lab.participants.map((p) => [p.name, p.kind]))).toEqual({ "Abe Lindqvist": "human", Scribe: "ai", Mailer: "ai" });
    expect(lab.participants.find((p) => p.name === "Mailer")!.metadata).toMatchObject({ botId: "B02XYZ", slackId: "U09SCRIBE" });
  });
});

describe("slack-export tombstones", () => {
  it("deleted-thread-parent: the placeholder of a deleted message stays a system turn marked deleted, not Slackbot's or anyone's words", async () => {
    const { sessions } = await importFixture(slackExportImporter, "slack-export/deleted-thread-parent");
    const lab = sessions[0]!;
    expect(lab.turns.map((t, i) => [speakerName(lab, i), t.type, t.text])).toEqual([
      ["deleted message", "system", "This message was deleted."],
      ["Ana Ruiz", "message", "I still think we should rerun it"],
      ["Ben Okafor", "message", "Agreed, tomorrow"],
    ]);
    expect(lab.turns[0]!.metadata).toMatchObject({ subtype: "tombstone", deleted: true, slackUser: "USLACKBOT" });
    expect(lab.participants.find((p) => p.name === "deleted message")?.kind).toBe("system");
    expect(lab.participants.map((p) => p.name)).not.toContain("USLACKBOT");
    // The replies still hang on the deleted parent.
    expect(lab.turns[1]!.metadata).toMatchObject({ parent: lab.turns[0]!.id });
  });
});
