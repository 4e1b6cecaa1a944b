import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * A minimal Word document whose body holds `paragraphs`, each a list of runs: a string is a
 * text run, "\t" a tab, "\n" a line break. What Teams writes, reduced to what the importer reads.
 */
export function makeDocx(paragraphs: readonly (readonly string[])[]): Buffer {
  const body = paragraphs
    .map(
      (runs) =>
        `<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr>${runs.map((r) => (r === "\t" ? "<w:r><w:tab/></w:r>" : r === "\n" ? "<w:r><w:br/></w:r>" : `<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${escape(r)}</w:t></w:r>`)).join("")}</w:p>`,
    )
    .join("");
  const zip = zipSync(
    {
      "[Content_Types].xml": strToU8(
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
      "word/document.xml": strToU8(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}<w:sectPr/></w:body></w:document>`,
      ),
    },
    { level: 6 },
  );
  return Buffer.from(zip);
}

/** The paragraphs' text (for the no-drop test): runs joined, breaks as new lines. */
export function docxText(bytes: Uint8Array): string[] {
  const document = unzipSync(bytes, { filter: (entry) => entry.name === "word/document.xml" })["word/document.xml"];
  const xml = document ? strFromU8(document) : "";
  return [...xml.matchAll(/<w:p>([\s\S]*?)<\/w:p>/g)].map((p) =>
    [...p[1]!.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>|<w:tab\/>|<w:br\/>/g)]
      .map((m) => (m[0] === "<w:tab/>" ? "\t" : m[0] === "<w:br/>" ? "\n" : m[1]!.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")))
      .join(""),
  );
}
