import { beforeAll, describe, expect, it } from "vitest";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import type { Codebook } from "../../src/coding/codebook/schema.js";
import { RULE_DESCRIPTIONS, RULES_CODER_VERSION, codeBales, codeStyle, codeTurnWithRules, rulesSupport, rulesProblem } from "../../src/coding/rules/index.js";
import type { Session } from "../../src/transcript/schema.js";

let bales: Codebook;
let style: Codebook;
let ttct: Codebook;
beforeAll(async () => {
  [bales, style, ttct] = await Promise.all(["bales-ipa", "pragmatic-style", "ttct-creativity"].map((id) => loadCodebook(id)));
});

/** A session from [speaker, text] pairs; speakers "ai" are AI agents, "sys" system. */
function session(turns: [string, string][]): Session {
  const speakers = [...new Set(turns.map(([s]) => s))];
  return {
    schemaVersion: 1,
    id: "s1",
    metadata: {},
    participants: speakers.map((id) => ({ id, name: id, kind: id === "ai" ? "ai" : id === "sys" ? "system" : "human" })),
    turns: turns.map(([speaker, text], index) => ({ id: `t${index}`, index, speaker, text, type: "message" })),
  };
}

const code = (text: string, previous?: string) => codeBales(text, previous);

describe("Bales rules: one example set per rule", () => {
  const cases: [string, string, string, string?][] = [
    // [text, expected code, expected rule, previous turn]
    ["", "none", "none:empty"],
    ["<Media omitted>", "none", "none:placeholder"],
    ["That's a ridiculous idea, did you even read the brief?", "shows-antagonism", "antagonism:hostile"],
    ["Whatever. Just do what I told you.", "shows-antagonism", "antagonism:hostile"],
    ["haha that's brilliant 😂", "shows-tension-release", "release:laughter"],
    ["😂😂", "shows-tension-release", "release:laughter"],
    ["Sorry, I'm completely lost. Can someone help?", "shows-tension", "tension:strain"],
    ["Ugh, nothing works.", "shows-tension", "tension:strain"],
    ["What do you think of the new onboarding flow?", "asks-opinion", "question:opinion"],
    ["Thoughts on this color palette?", "asks-opinion", "question:opinion"],
    ["Any ideas for the landing page?", "asks-suggestion", "question:suggestion"],
    ["How could we reduce the load time?", "asks-suggestion", "question:suggestion"],
    ["When is the client expecting the draft?", "asks-orientation", "question:information"],
    ["how long do we have again", "asks-orientation", "question:information"],
    ["Can you tell me which browsers they support?", "asks-orientation", "question:information"],
    ["Could you draft the three options for tomorrow?", "gives-suggestion", "question:proposal"],
    ["Shall we start with the login page?", "gives-suggestion", "question:proposal"],
    ["Great! Is there anything else I can help you with?", "shows-solidarity", "solidarity:offer-help"],
    ["No, let's not change the schema this late.", "disagrees", "disagree:opening", "Let's change the schema."],
    ["I don't think that's right, the client said mobile first.", "disagrees", "disagree:opening"],
    ["Yes, agreed.", "agrees", "agree:marker"],
    ["Sounds good to me.", "agrees", "agree:marker"],
    ["Good, let's do that.", "agrees", "agree:accept-proposal"],
    ["Will do.", "agrees", "agree:marker"],
    ["Okay, I've moved both into the sprint.", "agrees", "agree:compliance"],
    ["Yes.", "gives-orientation", "context:answer", "Did the deployment finish?"],
    ["Yes.", "agrees", "agree:marker", "We could ship on Friday."],
    ["Thanks so much, Nova, that summary saved me an hour.", "shows-solidarity", "solidarity:social"],
    ["Welcome to the team, Sam!", "shows-solidarity", "solidarity:social"],
    ["Let's start with the login flow and leave payments for next sprint.", "gives-suggestion", "suggestion:proposal"],
    ["We could ask the client to share their analytics.", "gives-suggestion", "suggestion:proposal"],
    ["Split it into two modules, one for retries and one for the client.", "gives-suggestion", "suggestion:imperative"],
    ["I think the second layout is much clearer for new users.", "gives-opinion", "opinion:stance"],
    ["That approach probably won't scale.", "gives-opinion", "opinion:stance"],
    ["The client's deadline is March 14th.", "gives-orientation", "orientation:information"],
    ["Here's the link to the spec: https://example.com/spec", "gives-orientation", "orientation:information"],
    ["The export only covers sessions from last month", "gives-orientation", "orientation:declarative"],
  ];
  for (const [text, expected, rule, previous] of cases) {
    it(`${JSON.stringify(text)}${previous ? ` after ${JSON.stringify(previous)}` : ""} -> ${expected} (${rule})`, () => {
      const decision = code(text, previous);
      expect(decision.code).toBe(expected);
      expect(decision.rules).toContain(rule);
    });
  }

  it("every rule id reported is documented, and every documented rule is exercised above", () => {
    const documented = new Set(Object.keys(RULE_DESCRIPTIONS["bales-ipa"]));
    const used = new Set(cases.map(([, , rule]) => rule));
    for (const rule of used) expect(documented.has(rule), rule).toBe(true);
    const unexercised = [...documented].filter((r) => !used.has(r) && !["none:system", "disagree:phrase", "agree:phrase"].includes(r));
    expect(unexercised).toEqual([]);
  });

  it("a closing question outranks earlier statements; laughter does not outrank a question", () => {
    expect(code("The build passed on staging. Did anyone test it on Safari?").code).toBe("asks-orientation");
    expect(code("so what are we building lol").code).toBe("asks-suggestion");
    expect(code("Agreed, but we should also add caching to the search endpoint.").code).toBe("gives-suggestion");
  });

  it("follows the codebook's own worked examples of the precedence", () => {
    expect(code("Thanks! Here is the file.").code).toBe("gives-orientation");
    expect(code("Thanks, that really helped.").code).toBe("shows-solidarity");
    expect(code("The new build is great.").code).toBe("gives-opinion");
    expect(code("ok, great", "We could ship on Friday.").code).toBe("agrees");
    expect(code("Yes, the API returns JSON.", "Does the API return JSON?").code).toBe("gives-orientation");
    // Soft doubt is an opinion on its own and a disagreement as a reaction to a proposal.
    expect(code("I'm not sure this scales.").code).toBe("gives-opinion");
    expect(code("I'm not sure this scales.", "Let's put everything in one table.").code).toBe("disagrees");
    expect(code("What do you think of the draft?").code).toBe("asks-opinion");
    expect(code("What should we do next?").code).toBe("asks-suggestion");
    expect(code("Why don't we use Postgres?").code).toBe("gives-suggestion");
    expect(code("This is a stupid idea, you clearly didn't read the brief.").code).toBe("shows-antagonism");
  });

  it("codes the codebook's own examples as their category (except a joke, which needs understanding)", async () => {
    if (bales.kind !== "nominal") throw new Error("bales-ipa must be nominal");
    const misses: string[] = [];
    for (const category of bales.categories) {
      for (const example of category.examples) {
        // Doubt examples are reactions: give them the proposal they react to.
        const previous = category.id === "disagrees" ? "We could double the server capacity." : undefined;
        const got = code(example, previous).code;
        if (got !== category.id) misses.push(`${category.id}: ${example} -> ${got}`);
      }
    }
    expect(misses).toEqual(["shows-tension-release: If the coffee machine were an API, it would be deprecated by now. -> gives-orientation"]);
  });

  it("a system turn is 13 whatever it says", () => {
    const s = session([
      ["sys", "Nova joined the channel"],
      ["alice", "Hi Nova!"],
    ]);
    expect(codeTurnWithRules(bales, s, 0)).toMatchObject({ codes: ["none"], rules: ["none:system"] });
    expect(codeTurnWithRules(bales, s, 1).codes).toEqual(["shows-solidarity"]);
  });

  it("uses the previous turn of the same session as context", () => {
    const s = session([
      ["alice", "Did the migration run?"],
      ["ai", "Yes."],
      ["alice", "We could roll out tomorrow then."],
      ["bob", "Yes."],
    ]);
    expect(codeTurnWithRules(bales, s, 1).codes).toEqual(["gives-orientation"]);
    expect(codeTurnWithRules(bales, s, 3).codes).toEqual(["agrees"]);
    // The first turn has no context and must not read another session's turns.
    expect(codeTurnWithRules(bales, s, 0).codes).toEqual(["asks-orientation"]);
  });
});

describe("pragmatic-style rules", () => {
  it("rates each scale from its cues, within 1..7", () => {
    const formal = codeStyle("Dear Ms. Lee, I would be most grateful if you could kindly confirm receipt of the revised proposal.");
    expect(formal.scores.formality).toBe(7);
    expect(formal.rules).toContain("formality:formal-formula");
    const chatty = codeStyle("lol yeah nvm 😂");
    expect(chatty.scores.formality).toBe(1);
    expect(chatty.scores.participation).toBe(2);

    expect(codeStyle("This is amazing, I love it!!").scores.sentiment).toBe(7);
    expect(codeStyle("This is not good.").rules).toContain("sentiment:negation");
    expect(codeStyle("This is not good.").scores.sentiment).toBe(3);
    expect(codeStyle("this is a disaster, I hate it!").scores.sentiment).toBe(1);
    expect(codeStyle("The file is in the folder.").scores).toMatchObject({ sentiment: 4, directness: 4, relationship: 4 });

    expect(codeStyle("No. Do it now. This is wrong.").scores.directness).toBe(7);
    expect(codeStyle("I was just wondering if maybe, at some point, it might be worth another option?").scores.directness).toBe(1);

    expect(codeStyle("Yes sir, as you wish.").scores.relationship).toBeLessThanOrEqual(2);
    expect(codeStyle("Let's decide together, what do you think?").scores.relationship).toBe(7);

    expect(codeStyle("ok").scores.participation).toBe(1);
    const active = codeStyle(
      "Let's split the work: Jen takes the frontend, I take the backend and Botty writes the matching. Should we meet at six to check progress? Also, can someone book a room for the demo, and what do you think about recording it for the client?",
    );
    expect(active.scores.participation).toBe(7);
  });

  it("codeTurnWithRules returns all five scale ids of the codebook with integer scores", () => {
    if (style.kind !== "scales") throw new Error("pragmatic-style must be a scales codebook");
    const s = session([["alice", "Could you maybe look at this when you have a moment? Thanks!"]]);
    const result = codeTurnWithRules(style, s, 0);
    expect(Object.keys(result.scores!).sort()).toEqual(style.scales.map((x) => x.id).sort());
    for (const v of Object.values(result.scores!)) expect(Number.isInteger(v) && v >= 1 && v <= 7).toBe(true);
    expect(result.rationale).toMatch(/sentiment \d/);
    for (const rule of result.rules) expect(RULE_DESCRIPTIONS["pragmatic-style"][rule], rule).toBeDefined();
  });
});

describe("rules coder API", () => {
  it("codes the codebooks that declare a rule set, whatever their id, and explains the others", () => {
    expect(rulesSupport(bales)).toBe(true);
    expect(rulesSupport(style)).toBe(true);
    expect(rulesSupport(ttct)).toBe(false);
    expect(() => codeTurnWithRules(ttct, session([["a", "hi"]]), 0)).toThrow(/"ttct-creativity" names no offline rule set/);
    // A researcher's adaptation of Bales, under its own id, declares the rule set and is coded by it.
    const mine = { ...bales, id: "my-bales", title: "Our Bales" };
    expect(codeTurnWithRules(mine, session([["a", "I think this plan is good"]]), 0).codes).toEqual(
      codeTurnWithRules(bales, session([["a", "I think this plan is good"]]), 0).codes,
    );
    // Without the rule set's categories the rules would give codes the codebook does not have.
    if (bales.kind !== "nominal") throw new Error("bales-ipa is nominal");
    const renamed = { ...bales, id: "renamed", categories: bales.categories.map((c) => ({ ...c, id: `x-${c.id}` })) };
    expect(rulesProblem(renamed)).toMatch(/lacks shows-solidarity/);
    expect(rulesProblem({ ...bales, rules: "nope" })).toMatch(/"nope" is not a rule set/);
    expect(rulesProblem({ ...bales, rules: "constructor" })).toMatch(/"constructor" is not a rule set/);
    expect(rulesProblem({ ...bales, rules: "pragmatic-style" })).toMatch(/is nominal but rule set "pragmatic-style" gives scale ratings/);
    expect(() => codeTurnWithRules(bales, session([["a", "hi"]]), 3)).toThrow(RangeError);
    expect(RULES_CODER_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("is deterministic: same input, same output, with a cold or warm cache", () => {
    const texts = ["Yes, agreed.", "What should we tackle first?", "I think the second one is cleaner.", "lol", "Here's the file."];
    const s = session(texts.map((t, i) => [i % 2 ? "ai" : "alice", t]));
    const first = texts.map((_, i) => [codeTurnWithRules(bales, s, i), codeTurnWithRules(style, s, i)]);
    const second = texts.map((_, i) => [codeTurnWithRules(bales, s, i), codeTurnWithRules(style, s, i)]);
    expect(second).toEqual(first);
  });

  it("codes very long and adversarial turns in bounded time (no catastrophic regex backtracking)", () => {
    const start = performance.now();
    codeBales("is ".repeat(5000) + "?");
    codeBales("The report is ready, but is it enough for the client who is waiting? ".repeat(1000));
    codeStyle("haha ".repeat(10000));
    expect(performance.now() - start).toBeLessThan(3000);
  });

  it("never alters the session it codes", () => {
    const s = session([
      ["alice", "  Thanks!  "],
      ["ai", "Sure thing ✨"],
    ]);
    const before = JSON.stringify(s);
    codeTurnWithRules(bales, s, 0);
    codeTurnWithRules(style, s, 1);
    expect(JSON.stringify(s)).toBe(before);
  });
});
