import { describe, expect, it } from "vitest";
import { elanImporter } from "../../src/ingest/formats/elan.js";
import { transcriberImporter } from "../../src/ingest/formats/transcriber.js";
import { detectFormat } from "../../src/ingest/registry.js";
import { fixture, importErrorOf, importFixture, speakerName } from "./json/helpers.js";
import { readFile } from "node:fs/promises";

describe("transcriber (.trs)", () => {
  it("reads speakers, turns, syncs, events and overlapping Who segments", async () => {
    const { sessions, result } = await importFixture(transcriberImporter, "transcriber/overlapping-who-and-syncs.trs");
    expect(result.warnings).toEqual([]);
    const [s] = sessions;
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([
      ["Hélène", "human"],
      ["Voice assistant", "human"],
    ]);
    expect(s.participants[0].metadata).toMatchObject({ type: "female", dialect: "native" });
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.end])).toEqual([
      ["Hélène", "bon, on commence par les présentations je m'appelle Hélène & je travaille ici", 0, 5.1],
      ["Hélène", "attends", 5.1, 6.4],
      ["Voice assistant", "I didn't catch that", 5.1, 6.4],
      ["Voice assistant", "could you repeat the question?", 6.4, 9.8],
    ]);
    expect(s.turns[0].metadata).toMatchObject({
      syncs: [
        { time: 0, at: 0 },
        { time: 2.35, at: 38 },
      ],
      marks: [{ tag: "Event", desc: "rire", type: "noise", extent: "instantaneous", at: 63 }],
      section: { type: "report", topic: "to1", topicDesc: "warm-up" },
    });
    expect(s.turns[0].text.slice(0, 38)).toBe("bon, on commence par les présentations");
    expect(s.turns[1].metadata?.overlap).toBe(true);
    expect(s.turns[3].metadata?.marks).toEqual([{ tag: "Comment", desc: "synthetic voice", at: 30 }]);
    expect(s.metadata.transcriber).toMatchObject({ scribe: "lab-a", audio_filename: "focus-group-3" });
  });

  it("keeps music-only turns as non-speech, names undeclared speakers by id with a warning, and speakerless words", async () => {
    const { sessions, result } = await importFixture(transcriberImporter, "transcriber/turn-without-speaker-and-undeclared-id.trs");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text])).toEqual([
      ["Host", "welcome back to the show"],
      ["spk3", "thanks for having me"],
      ["(no speaker)", "[inaudible] yes"],
    ]);
    expect(s.metadata.nonSpeech).toEqual([{ start: 0, end: 4, marks: [{ tag: "Background", time: "0", type: "music", level: "high", at: 0 }] }]);
    expect(result.warnings).toEqual([expect.stringMatching(/turn speaker "spk3" is not declared in <Speakers>/)]);
  });

  it("rejects malformed XML naming the line", async () => {
    const error = await importErrorOf(transcriberImporter, "b.trs", await readFile(fixture("transcriber/broken-unclosed-turn.trs"), "utf8"));
    expect(error.message).toMatch(/^b\.trs:8: invalid XML at column \d+: Expected closing tag 'Turn'.*; expected a Transcriber file/);
  });
});

describe("elan (.eaf)", () => {
  it("merges speaker tiers in time order, with translations from dependent tiers in metadata", async () => {
    const { sessions, result } = await importFixture(elanImporter, "elan/two-speakers-with-translation-tier.eaf", { agents: ["Tablet assistant"] });
    expect(result.warnings).toEqual([]);
    const [s] = sessions;
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([
      ["Rosa", "human"],
      ["Tablet assistant", "ai"],
    ]);
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.end])).toEqual([
      ["Rosa", "¿Le preguntamos al asistente?", 0, 1.85],
      ["Tablet assistant", "Claro, ¿qué necesitas saber?", 1.2, 3.9],
      ["Rosa", "Vale & gracias", 4.1, 6.02],
    ]);
    expect(s.turns[0].metadata).toEqual({ tier: "Rosa-utt", annotationId: "a1", tiers: { "Rosa-en": ["Shall we ask the assistant?"] } });
    expect(s.turns[2].metadata?.tiers).toEqual({ "Rosa-en": ["OK & thanks"] });
    expect(s.metadata.header).toMatchObject({ TIME_UNITS: "milliseconds", MEDIA_DESCRIPTOR: { MEDIA_URL: "file:///data/pair-04.wav" } });
  });

  it("keeps every header property (ELAN writes one <PROPERTY> per property), not only the last", async () => {
    const { sessions } = await importFixture(elanImporter, "elan/header-with-several-properties.eaf");
    expect(sessions[0].metadata.header).toMatchObject({
      MEDIA_DESCRIPTOR: { MEDIA_URL: "file:///data/story-07.wav" },
      PROPERTY: [
        { NAME: "lastUsedAnnotationId", text: "2" },
        { NAME: "metadata:Age:Child", text: "5;2" },
        { NAME: "metadata:Context:Child", text: "story retell" },
      ],
    });
  });

  it("attaches time-subdivision words by time, even on an unaligned slot; names a tier without PARTICIPANT by its id", async () => {
    const { sessions } = await importFixture(elanImporter, "elan/time-subdivision-and-unaligned-slots.eaf");
    const [s] = sessions;
    expect(s.participants.map((p) => p.name)).toEqual(["Speaker B"]);
    expect(s.turns[0]).toMatchObject({
      text: "good morning everyone",
      start: 0.5,
      end: 2.5,
      metadata: { tiers: { "Speaker B words": ["good-morning", "everyone"] } },
    });
    // The empty annotation (3 s to 4 s) holds no words: not a turn.
    expect(s.turns).toHaveLength(1);
  });

  it("keeps a dependent annotation with no utterance in session metadata, with a warning", async () => {
    const text = (await readFile(fixture("elan/time-subdivision-and-unaligned-slots.eaf"), "utf8")).replace(
      'TIME_SLOT_REF1="ts1" TIME_SLOT_REF2="ts3"',
      'TIME_SLOT_REF1="ts4" TIME_SLOT_REF2="ts4"',
    );
    const { textInput } = await import("../../src/ingest/input.js");
    const result = await elanImporter.parse(textInput("o.eaf", text), {});
    expect(result.sessions[0].metadata?.orphanAnnotations).toEqual([
      expect.objectContaining({ value: "good-morning" }),
      expect.objectContaining({ value: "everyone" }),
    ]);
    expect(result.warnings).toEqual([
      "o.eaf: 1 empty annotation(s) on speech tiers are not turns",
      "o.eaf: 2 dependent annotation(s) belong to no utterance; kept in session metadata orphanAnnotations",
    ]);
  });
});

describe("XML format detection", () => {
  it("detects .trs and .eaf by content", async () => {
    expect(detectFormat("x.xml", await readFile(fixture("transcriber/overlapping-who-and-syncs.trs"), "utf8")).name).toBe("transcriber");
    expect(detectFormat("x.xml", await readFile(fixture("elan/two-speakers-with-translation-tier.eaf"), "utf8")).name).toBe("elan");
  });
});
