import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { transcriberImporter } from "../../src/ingest/formats/transcriber.js";
import { fixture, importErrorOf, importText, speakerName } from "./json/helpers.js";

/** XML transcripts go through the one XML module: XML's entities and character references, nothing HTML-only. */
describe("entities in XML transcripts", () => {
  it("decodes decimal and hex character references and the predefined entities, in text and attributes", async () => {
    const trs = `<?xml version="1.0" encoding="UTF-8"?>
<Trans><Speakers><Speaker id="s1" name="H&#233;l&#xE8;ne &amp; co"/></Speakers>
<Episode><Section type="report" startTime="0" endTime="4"><Turn speaker="s1" startTime="0" endTime="4"><Sync time="0"/>caf&#233; &#x1F600; &lt;ok&gt; &quot;yes&quot; &apos;no&apos;</Turn></Section></Episode></Trans>`;
    const { sessions } = await importText(transcriberImporter, "refs.trs", trs);
    const [s] = sessions;
    expect(speakerName(s, 0)).toBe("Hélène & co");
    expect(s.turns[0].text).toBe(`café 😀 <ok> "yes" 'no'`);
  });

  it("refuses an HTML-only entity (&nbsp;) as malformed XML, naming the line", async () => {
    const error = await importErrorOf(transcriberImporter, "nbsp.trs", await readFile(fixture("transcriber/bad-html-entity.trs"), "utf8"));
    expect(error.message).toMatch(/^nbsp\.trs:10: invalid XML at column \d+: &nbsp; is not an XML entity/);
  });
});
