// The Markdown report is read by renderers that pass raw HTML through, so text from the study
// (speaker names, code labels, topic words) is escaped as the HTML report escapes it.
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../src/report/paper/render-markdown.js";
import type { PaperReport } from "../../src/report/paper/document.js";

const evil = "<img src=x onerror=alert(1)>";

const report: PaperReport = {
  title: `Study ${evil}`,
  byline: "Colloquy & friends",
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
    expect(md).not.toMatch(/<img|<script|<b>/);
    expect(md).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(md).toContain("# Study &lt;img src=x onerror=alert(1)&gt;");
    expect(md).toContain("## Speakers: &lt;img");
    expect(md).toContain("_Colloquy &amp; friends_");
    expect(md).toContain("- Note on &lt;img");
    expect(md).toContain("_Figure: Share by &lt;img");
    expect(md).toContain("*Turns by &lt;img src=x onerror=alert(1)&gt;.*");
  });
  it("table cells keep their pipes inside the cell", () => {
    expect(md).toContain("| &lt;img src=x onerror=alert(1)&gt; | 3 |");
    expect(md).toContain("| a\\|b &lt;b&gt;bold&lt;/b&gt; | 2 |");
  });
  it("a line break cannot start a block of raw HTML", () => {
    expect(md).toContain("spoke most. &lt;script&gt;");
  });
});
