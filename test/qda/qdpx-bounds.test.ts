import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { readProject } from "../../src/qda/project-read.js";
import { unzipEntries } from "../../src/util/zip.js";

const G = (n: number) => `{${String(n).padStart(8, "0")}-AAAA-4BBB-8CCC-DDDDDDDDDDDD}`;
const qde = `<?xml version="1.0" encoding="utf-8"?>
<Project xmlns="urn:QDA-XML:project:1.0" name="p"><Sources>
  <TextSource guid="${G(1)}" name="interview" plainTextPath="internal://${G(1).slice(1, -1)}.txt"/>
</Sources></Project>`;

/** Set every central-directory entry's "uncompressed size" to `size`: what a zip bomb's header claims. */
function claimSize(zip: Uint8Array, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let i = 0; i + 46 <= out.length; i++) if (view.getUint32(i, true) === 0x02014b50) view.setUint32(i + 24, size, true);
  return out;
}

describe(".qdpx reading", () => {
  it("warns, naming the file and entry, when a source's text has invalid UTF-8 bytes", () => {
    const text = Uint8Array.from([...strToU8("Ana: caf"), 0xe9, ...strToU8(" au lait\n")]);
    const project = readProject(zipSync({ "project.qde": strToU8(qde), [`sources/${G(1).slice(1, -1)}.txt`]: text }), "study.qdpx");
    expect(project.sources[0].text).toBe("Ana: caf\uFFFD au lait\n");
    expect(project.warnings).toEqual([expect.stringMatching(/^study\.qdpx \(internal:\/\/.*\.txt\): 1 invalid UTF-8 byte sequence\(s\) replaced by U\+FFFD/)]);
  });

  it("leaves entries it does not read compressed, and refuses one whose header claims more than the limit", () => {
    const video = new Uint8Array(4 * 1024 * 1024);
    const zip = zipSync({ "project.qde": strToU8(qde), "sources/clip.mp4": video }, { level: 9 });
    expect(Object.keys(unzipEntries(zip, (name) => name.endsWith(".qde")))).toEqual(["project.qde"]);
    expect(() => unzipEntries(zip, () => true, 1024 * 1024)).toThrow(/sources\/clip\.mp4 would unpack to 4 MB, more than the 1 MB read from one zip entry/);
    expect(() => readProject(claimSize(zip, 0xfffffff0), "bomb.qdpx")).toThrow(
      /^bomb\.qdpx: not a zip archive, or not one to unpack \(project\.qde would unpack to 4096 MB/,
    );
  });
});
