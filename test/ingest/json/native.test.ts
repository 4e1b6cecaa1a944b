import { describe, expect, it } from "vitest";
import { nativeImporter } from "../../../src/ingest/formats/native.js";
import { importErrorOf, importFixture, importText } from "./helpers.js";

describe("native importer", () => {
  it("imports JSONL (blank lines allowed) and keeps an existing source", async () => {
    const { sessions } = await importFixture(nativeImporter, "native/pilot-sessions.jsonl");
    expect(sessions.map((s) => s.id)).toEqual(["pilot-1", "pilot-2"]);
    expect(sessions[0].metadata.source).toEqual({ file: "orig/run-1.md", format: "slack-paste" });
    expect(sessions[1].metadata.source).toMatchObject({ format: "native" });
    expect(sessions[0].turns[1].text).toBe('How about "Brew Crew",\n"Bean There"?');
  });

  it("imports one session object and an array of sessions", async () => {
    const { sessions } = await importFixture(nativeImporter, "native/session.json");
    expect(sessions[0]).toMatchObject({ id: "interview-07", metadata: { interviewer_notes: "quiet room" } });
    expect(sessions[0].turns[2].type).toBe("backchannel");
    const two = await importText(nativeImporter, "s.json", JSON.stringify([sessions[0], { ...sessions[0], id: "copy" }]));
    expect(two.sessions.map((s) => s.id)).toEqual(["interview-07", "copy"]);
  });

  it("names the line of a bad JSONL session and the path of a bad array element", async () => {
    const good = JSON.stringify({ id: "a", participants: [], turns: [] });
    const bad = JSON.stringify({ id: "b", participants: [], turns: [{ id: "t0", index: 0, speaker: "nobody", text: "x" }] });
    const error = await importErrorOf(nativeImporter, "s.jsonl", `${good}\n\n${bad}\n`);
    expect(error.line).toBe(3);
    expect(error.message).toBe(
      's.jsonl:3: turns[0].speaker "nobody" is not a participant id; expected a Colloquy session {schemaVersion, id, participants, turns} (see src/transcript/schema.ts)',
    );
    const syntax = await importErrorOf(nativeImporter, "s.jsonl", `${good}\n{"id": "x",}\n`);
    expect(syntax.message).toMatch(/^s\.jsonl:2: invalid JSON at column 12/);
    const arr = await importErrorOf(nativeImporter, "s.json", JSON.stringify([JSON.parse(good), { id: "bad id!", participants: [], turns: [] }]));
    expect(arr.message).toMatch(/^s\.json: \$\[1\]: invalid session: id: letters, digits/);
  });

  it("reads a .json file that holds JSONL", async () => {
    const line = (id: string) => JSON.stringify({ schemaVersion: 1, id, participants: [], turns: [] });
    const { sessions } = await importText(nativeImporter, "s.json", `${line("a")}\n${line("b")}\n`);
    expect(sessions.map((s) => s.id)).toEqual(["a", "b"]);
  });

  it("detects native sessions", () => {
    expect(nativeImporter.detect("x.jsonl", '{"schemaVersion":1,"id":"a","participants":[],"turns":[]}')).toBe(1);
    expect(nativeImporter.detect("x.json", '{"id":"a"}')).toBe(0);
  });
});
