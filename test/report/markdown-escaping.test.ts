// The Markdown report is read by renderers that pass raw HTML through, so text from the study
// (speaker names, code labels, topic words) is escaped with CommonMark's backslash, never with an
// HTML entity (which pandoc and Quarto would print as "&lt;" in a manuscript).
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../src/report/paper/render-markdown.js";
import type { PaperReport } from "../../src/report/paper/document.js";

const evil = "<img src=x onerror=alert(1)>";

const report: PaperReport = {
  title: `Study ${evil}`,
  byline: "Colloquy & friends &amp; p < .05",
  sections: [
    {
      title: `Speakers: ${evil}`,
      level: 2,
      blocks: [
        { kind: "paragraph", text: `${evil} spoke most.\n<script>alert(2)</script>` },
        {
          kind: "table",
          table: {
            id: "sample",
            caption: `Turns by ${evil}`,
            source: "analysis/stats.json speakers",
            columns: ["speaker", "turns"],
            rows: [
              [evil, 3],
              ["a|b <b>bold</b>", 2],
            ],
          },
        },
        { kind: "notes", items: [`Note on ${evil}`] },
        {
          kind: "chart",
          chart: { kind: "bars", id: "c", caption: `Share by ${evil}`, categories: [evil], series: [{ name: evil, values: [1] }], valueLabel: "share" },
        },
      ],
    },
  ],
};

describe("the Markdown report escapes HTML", () => {
  const md = renderMarkdown(report);
  it("a speaker named like an HTML tag is text, not markup", () => {
    expect(md).not.toMatch(/(^|[^\\])<(img|script|b>)/m);
    expect(md).not.toMatch(/(^|[^\\])&(lt|gt|amp|quot);/m);
    expect(md).toContain("\\<img src=x onerror=alert(1)>");
    expect(md).toContain("# Study \\<img src=x onerror=alert(1)>");
    expect(md).toContain("## Speakers: \\<img");
    expect(md).toContain("_Colloquy & friends \\&amp; p < .05_");
    expect(md).toContain("- Note on \\<img");
    expect(md).toContain("Share by \\<img");
    expect(md).toContain("*Turns by \\<img src=x onerror=alert(1)>.*");
  });
  it("table cells keep their pipes inside the cell", () => {
    expect(md).toContain("| \\<img src=x onerror=alert(1)> | 3 |");
    expect(md).toContain("| a\\|b \\<b>bold\\</b> | 2 |");
  });
  it("a line break cannot start a block of raw HTML", () => {
    expect(md).toContain("spoke most. \\<script>");
  });
});
