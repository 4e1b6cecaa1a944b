import { describe, expect, it } from "vitest";
import { transcriberImporter } from "../../src/ingest/formats/transcriber.js";
import { importFixture, importText, speakerName } from "./json/helpers.js";

describe("transcriber (.trs) <Who nb> that names none of the Turn's speakers", () => {
  it("keeps those words under an explicit unknown speaker, never the Turn's last speaker, and warns with the line", async () => {
    const { sessions, result } = await importFixture(transcriberImporter, "transcriber/who-nb-beyond-turn-speakers.trs");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.metadata?.who, t.metadata?.overlap])).toEqual([
      ["Tutor", "so the second question", 0, undefined, true],
      ["Student", "yes", 0, undefined, true],
      ["(unknown speaker)", "can I ask something first", 0, "3", true],
      ["Student", "I think it depends", 3.5, undefined, true],
      ["(unknown speaker)", "on what", 3.5, "2", true],
    ]);
    // The commented-out <Who> on line 16 is not counted: the lines are those of the real tags.
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /who-nb-beyond-turn-speakers\.trs:17: <Who nb="3"> in the turn at 0 s, which has speaker="spk1 spk2" \(2\); its words are kept under "\(unknown speaker\)"$/,
      ),
      expect.stringMatching(/who-nb-beyond-turn-speakers\.trs:24: <Who nb="2"> in the turn at 3\.5 s, which has speaker="spk2" \(1\)/),
    ]);
  });

  it("a non-numeric or zero nb, or none in a Turn of several speakers, names nobody either", async () => {
    const trs = (who: string) =>
      `<Trans><Speakers><Speaker id="a" name="A"/><Speaker id="b" name="B"/></Speakers><Episode><Section type="report" startTime="0" endTime="2">\n<Turn speaker="a b" startTime="0" endTime="2">\n<Who nb="1"/>one\n${who}two\n</Turn></Section></Episode></Trans>`;
    for (const who of ['<Who nb="0"/>', '<Who nb="x"/>', '<Who nb="1.5"/>', "<Who/>"]) {
      const { sessions, result } = await importText(transcriberImporter, "w.trs", trs(who));
      const [s] = sessions;
      expect(
        s.turns.map((t) => [speakerName(s, t.index), t.text]),
        who,
      ).toEqual([
        ["A", "one"],
        ["(unknown speaker)", "two"],
      ]);
      expect(result.warnings, who).toEqual([expect.stringMatching(/^w\.trs:4: <Who/)]);
    }
    // A Turn of one speaker may leave nb out: its words are that speaker's.
    const { sessions, result } = await importText(
      transcriberImporter,
      "one.trs",
      '<Trans><Episode><Section type="report"><Turn speaker="a" startTime="0"><Who/>hi</Turn></Section></Episode></Trans>',
    );
    expect(sessions[0].turns.map((t) => [speakerName(sessions[0], t.index), t.text])).toEqual([["a", "hi"]]);
    expect(result.warnings).toEqual([expect.stringMatching(/speaker "a" is not declared/)]);
  });
});

describe("transcriber (.trs) overlapping Turns with several <Sync> intervals", () => {
  it("keeps each <Who> run as its own turn, timed by the Syncs around it, instead of joining a speaker's runs", async () => {
    const { sessions, result } = await importFixture(transcriberImporter, "transcriber/who-runs-across-syncs.trs");
    expect(result.warnings).toEqual([]);
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.end, t.metadata?.overlap])).toEqual([
      ["Host", "good morning", 0.5, 2, true],
      ["Caller", "hello :fra is this the", 0.5, 2, true],
      ["Host", "%hum %hum", 2, 5.5, true],
      ["Caller", "show about the weather", 2, 5.5, true],
      ["Host", "yes it is", 5.5, 7, true],
      ["Caller", "great", 5.5, 7, true],
      // A Turn of one speaker stays one turn, its Syncs kept as time marks in the text.
      ["Caller", "so tomorrow will it rain", 7, 12, undefined],
    ]);
    expect(s.turns[0].metadata).toMatchObject({ syncs: [{ time: 0.5, at: 0 }], marks: [{ tag: "Event", desc: "rire", at: 12 }] });
    expect(s.turns[6].metadata?.syncs).toEqual([
      { time: 7, at: 0 },
      { time: 9, at: 11 },
    ]);
  });
});

describe("transcriber (.trs) a <Who> naming whoever is already speaking", () => {
  it("goes on with the same run: one turn, the Turn's times, no overlap", async () => {
    const trs = (turn: string) =>
      `<Trans><Speakers><Speaker id="a" name="A"/><Speaker id="b" name="B"/></Speakers><Episode><Section type="report">${turn}</Section></Episode></Trans>`;
    const one = await importText(
      transcriberImporter,
      "one.trs",
      trs('<Turn speaker="a" startTime="6" endTime="9"><Sync time="6"/>solo <Who nb="1"/> again<Sync time="8"/> more</Turn>'),
    );
    const s = one.sessions[0];
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.end, t.metadata?.overlap])).toEqual([["A", "solo again more", 6, 9, undefined]]);
    const two = await importText(
      transcriberImporter,
      "two.trs",
      trs('<Turn speaker="a b" startTime="0" endTime="4"><Who nb="1"/>x<Who nb="1"/>y<Who nb="2"/>z</Turn>'),
    );
    const t = two.sessions[0];
    expect(t.turns.map((u) => [speakerName(t, u.index), u.text])).toEqual([
      ["A", "x y"],
      ["B", "z"],
    ]);
  });
});
