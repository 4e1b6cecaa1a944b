import { describe, expect, it } from "vitest";
import { cp, mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createHash } from "node:crypto";
import { runPipeline } from "../../src/pipeline/run.js";
import { studyStages } from "../../src/pipeline/stages.js";
import type { HashedFolder, PipelineOptions, Stage } from "../../src/pipeline/types.js";
import { silentReporter } from "../../src/util/reporter.js";
import { schemaInstance, startOpenAiServer } from "../support/openai-server.js";

/**
 * After a stage runs, the pipeline hashes again only the folders the stage declares it writes
 * (Stage.writes); a later stage reading another folder gets the hashes taken before. A stage
 * that changed a folder it does not declare would leave later stages deciding on stale
 * fingerprints, so each stage is run here on real work, offline and with the LLM coders (codes
 * and topic trees through an OpenAI-compatible server), and every hashed folder is compared,
 * byte for byte, before and after it.
 */

const demo = join(import.meta.dirname, "../../fixtures/demo-study");
const hashedFolders: HashedFolder[] = ["sessions", "codes", "analysis", "inbox"];

/** sha256 of every file below `dir` (dotfiles included: a stage must not hide a write in one), by path. */
async function contents(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let names: string[] = [];
  try {
    names = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  } catch {
    return out;
  }
  for (const path of names.sort())
    out[relative(dir, path)] = createHash("sha256")
      .update(await readFile(path))
      .digest("hex");
  return out;
}

/** The contents of every hashed folder of the study. */
async function snapshot(study: string): Promise<Record<HashedFolder, Record<string, string>>> {
  const entries = await Promise.all(hashedFolders.map(async (f) => [f, await contents(join(study, f))] as const));
  return Object.fromEntries(entries) as Record<HashedFolder, Record<string, string>>;
}

/** Run every stage of the pipeline, noting the hashed folders each one changed. */
async function runWatched(dir: string, options: PipelineOptions): Promise<Map<string, HashedFolder[]>> {
  const changed = new Map<string, HashedFolder[]>();
  const watched = studyStages.map((stage): Stage => ({
    ...stage,
    async run(context) {
      const before = await snapshot(dir);
      const summary = await stage.run(context);
      const after = await snapshot(dir);
      changed.set(
        stage.name,
        hashedFolders.filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f])),
      );
      return summary;
    },
  }));
  const run = await runPipeline(dir, watched, options, silentReporter);
  expect(run.stages.map((s) => `${s.name} ${s.status}`)).toEqual(studyStages.map((s) => `${s.name} ran`));
  return changed;
}

function expectDeclared(changed: Map<string, HashedFolder[]>): void {
  for (const stage of studyStages) {
    const undeclared = changed.get(stage.name)!.filter((f) => !stage.writes.includes(f));
    expect({ stage: stage.name, undeclared }).toEqual({ stage: stage.name, undeclared: [] });
  }
}

describe("Stage.writes", () => {
  it("each stage, running on real work, offline and with the LLM coders, changes no hashed folder it does not declare", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-stage-writes-")), "demo");
    await cp(demo, dir, { recursive: true });
    const offline = await runWatched(dir, {});
    expectDeclared(offline);
    // The check can fail: the stages that write did change their folders here.
    expect(offline.get("import")).toContain("sessions");
    expect(offline.get("code")).toEqual(["codes"]);
    expect(offline.get("concepts")).toEqual(["analysis"]);

    // New work for every stage: a new session through the inbox, and an edited one whose codes follow its turns.
    const paste = join(dir, "inbox", "control", "3", "run-3.md");
    const text = await readFile(paste, "utf8");
    await mkdir(join(dir, "inbox", "control", "7"));
    await writeFile(join(dir, "inbox", "control", "7", "run-7.md"), text);
    await writeFile(paste, text.replace("for my nephew.", "for my nephew, please."));
    const server = await startOpenAiServer({
      handler: (req) => {
        const schema = req.body.response_format?.json_schema?.schema ?? { type: "string" };
        if (!schema.properties?.mainTopics) return { content: JSON.stringify(schemaInstance(schema)) };
        // A topic tree over the first marked turn of the prompt ("* [t0003] Maya: …").
        const [turn] = /^\* \[([^\]]+)\]/m.exec(String(req.body.messages.at(-1).content))!.slice(1);
        return { content: JSON.stringify({ mainTopics: [{ label: "The game", turns: [turn], subtopics: [{ label: "Rules", turns: [turn] }] }] }) };
      },
    });
    try {
      const llm = await runWatched(dir, { coder: "llm", baseUrl: server.url, model: "test-model" });
      expectDeclared(llm);
      expect(server.chatRequests().length).toBeGreaterThan(0);
      expect(llm.get("import")).toEqual(["sessions", "codes"]);
      expect(llm.get("code")).toEqual(["codes"]);
      expect(llm.get("topics")).toEqual(["analysis"]);
    } finally {
      await server.close();
    }
  }, 120_000);
});
