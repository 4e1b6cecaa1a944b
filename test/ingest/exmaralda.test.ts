import { fileURLToPath } from "node:url";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { exmaraldaImporter } from "../../src/ingest/formats/exmaralda.js";
import { fileInput } from "../../src/ingest/input.js";
import { detectFormat } from "../../src/ingest/registry.js";
import { ImportError } from "../../src/ingest/types.js";

const dir = fileURLToPath(new URL("../../fixtures/transcripts/exmaralda/", import.meta.url));
const good = `${dir}two-speakers-split-events-and-annotation-tier.exb`;
const bad = `${dir}bad-event-points-to-missing-timeline-point.exb`;

describe("EXMARaLDA basic transcription importer", () => {
  it("is detected from its root element, with or without the .exb extension", async () => {
    const head = await readFile(good, "utf8");
    expect(detectFormat("interview.exb", head).name).toBe("exmaralda");
    expect(detectFormat("interview.xml", head).name).toBe("exmaralda");
  });

  it("joins events that follow without a gap into one turn, orders speakers on the timeline, leaves untimed points untimed", async () => {
    const result = await exmaraldaImporter.parse(fileInput(good), {});
    const session = result.sessions[0]!;
    expect(session.participants.map((p) => p.name)).toEqual(["INT", "P07"]);
    expect(session.turns.map((t) => [t.speaker, t.start, t.end, t.text])).toEqual([
      ["int", 0, undefined, "So when did you first notice it answering & interrupting?"],
      ["p07", 2.4, 7, "Right, that's the thing: it never waits for me."],
      ["int", 7, 9.5, "Sorry, go on."],
    ]);
    expect(session.turns[0]!.metadata).toMatchObject({ startPoint: "T0", endPoint: "T3" });
    expect(session.turns[2]!.metadata?.eventInfo).toEqual([{ "ud-information": { "attribute-name": "certainty", text: "unsure who spoke" } }]);
    expect(session.metadata?.head).toMatchObject({ "meta-information": { "project-name": "Assistant interviews" } });
  });

  it("keeps annotation and description tiers out of the turns, in metadata, with a warning", async () => {
    const result = await exmaraldaImporter.parse(fileInput(good), {});
    const other = result.sessions[0]!.metadata?.otherTiers as { id: string; events: { text: string }[] }[];
    expect(other.map((t) => [t.id, t.events.map((e) => e.text)])).toEqual([
      ["TIE2", ["((laughs))"]],
      ["TIE3", ["complaint about turn-taking"]],
    ]);
    expect(result.warnings).toEqual([expect.stringMatching(/"P07 \[nv\]" \(type d\), "P07 \[en\]" \(type a\) are annotations or descriptions/)]);
  });

  it("names the line and the timeline point of an event that points nowhere", async () => {
    const error = await exmaraldaImporter.parse(fileInput(bad), {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as Error).message).toMatch(/bad-event-points-to-missing-timeline-point\.exb:11: event end="T9" in tier "TIE0" names no <tli>/);
  });

  it("refuses a file whose transcription tiers hold no words, and an event ending before it starts", async () => {
    const empty = '<basic-transcription><basic-body><common-timeline><tli id="T0"/></common-timeline></basic-body></basic-transcription>';
    const backwards =
      '<basic-transcription><basic-body><common-timeline><tli id="T0"/><tli id="T1"/></common-timeline>\n<tier id="A" type="t"><event start="T1" end="T0">x</event></tier></basic-body></basic-transcription>';
    const input = (text: string) => ({ ...fileInput("x.exb"), readText: () => Promise.resolve(text) });
    await expect(exmaraldaImporter.parse(input(empty), {})).rejects.toThrow(/no transcription tier/);
    await expect(exmaraldaImporter.parse(input(backwards), {})).rejects.toThrow(/x\.exb:2: event in tier "A" ends \(T0\) at or before its start/);
  });
});
