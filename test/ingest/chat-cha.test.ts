import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { chatChaImporter } from "../../src/ingest/formats/chat-cha.js";
import { detectFormat } from "../../src/ingest/registry.js";
import { fixture, importFixture, speakerName } from "./json/helpers.js";

describe("CHAT (.cha) importer", () => {
  it("reads participants, utterances with bullets and continuations, dependent tiers and headers", async () => {
    const { sessions, result } = await importFixture(chatChaImporter, "cha/participants-tiers-bullets-continuations.cha");
    expect(result.warnings).toEqual([]);
    const [s] = sessions;
    expect(s.participants.map((p) => [p.name, p.role, p.metadata?.code])).toEqual([
      ["Ross", "Target_Child", "CHI"],
      ["MOT", "Mother", "MOT"],
      ["INV", "Investigator", "INV"],
    ]);
    expect(s.participants[0].metadata?.id).toEqual(["eng", "sample", "CHI", "2;06.12", "male", "", "", "Target_Child", "", "", ""]);
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.end])).toEqual([
      ["Ross", "more cookie .", 0, 1.42],
      ["MOT", "you [/] you want more cookies ?", 1.5, 3.21],
      ["INV", "&-um can you ask the robot xxx ?", 3.3, 5],
      ["Ross", "0 .", undefined, undefined],
    ]);
    expect(s.turns[0].metadata).toEqual({ tiers: { mor: "qn|more n|cookie .", gra: "1|2|QUANT 2|0|ROOT 3|2|PUNCT" } });
    expect(s.turns[3].metadata).toEqual({ tiers: { act: "shakes head" } });
    const headers = s.metadata.headers as { header: string; value?: string; beforeTurn?: number }[];
    expect(headers.map((h) => h.header)).toEqual(["UTF8", "Begin", "Languages", "Participants", "ID", "ID", "ID", "Media", "Date", "Comment", "End"]);
    expect(headers[9]).toEqual({ header: "Comment", value: "child reaches for the tablet", beforeTurn: 2 });
  });

  it("names an undeclared speaker by its code and keeps an untabbed line as a continuation, each with a located warning", async () => {
    const { sessions, result } = await importFixture(chatChaImporter, "cha/undeclared-speaker-and-untabbed-line.cha", { agents: ["ROB"] });
    const [s] = sessions;
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([
      ["PAR", "human"],
      ["ROB", "ai"],
      ["EXP", "human"],
    ]);
    expect(s.turns[2].text).toBe("we are recording now . this line lost its tab");
    expect(result.warnings).toEqual([
      expect.stringMatching(/undeclared-speaker-and-untabbed-line\.cha:6: line starts with none of @ \* % or a tab; kept as a continuation of line 5$/),
      expect.stringMatching(/undeclared-speaker-and-untabbed-line\.cha:5: speaker \*EXP is not in @Participants; named by its code$/),
    ]);
  });

  it("is detected by content", async () => {
    expect(detectFormat("x.txt", await readFile(fixture("cha/participants-tiers-bullets-continuations.cha"), "utf8")).name).toBe("cha");
  });
});
