import type { Session } from "../../transcript/schema.js";
import * as P from "./bales-patterns.js";
import { analyseText, isImperativeVerb, type Sentence, type TurnText } from "./text.js";

/**
 * Bales IPA by rules: one category per turn.
 *
 * Bales scored every simple sentence as an act; we give one code per turn, so the turn's code is
 * chosen by this documented precedence (first rule that applies wins):
 *   1. none          - system turns, empty turns, media placeholders, join notices, bare mentions (13);
 *   2. antagonism    - hostile or dismissive wording toward another anywhere in the turn (12);
 *   3. laughter      - laughter, playful emoji, relief, unless the turn is long or ends in a question (2);
 *   4. tension       - confusion, stress, apologies for one's mistakes, pleas for help (11);
 *   5. questions     - a closing question sets what the group must do next: asks for opinion (8),
 *                      suggestion (9) or orientation (7); a question proposing an action is 4; an
 *                      offer of help is 1. Tag questions ("…, no?") and questions inside lists or
 *                      quotes do not count; a question followed by a short remark (<= 10 words)
 *                      still does;
 *   6. disagreement  - the turn opens by rejecting or doubting what was said (10);
 *   7. agreement     - the turn opens with assent and adds no new proposal or facts (3), including
 *                      compliance ("done, I've moved it"); a "yes"/"no" answering a question of
 *                      fact gives orientation (6);
 *   8. solidarity    - thanks, praise, greetings, reassurance (1), unless they pad a task turn;
 *   9. task acts     - suggestion (4) > opinion (5) > orientation (6), by the sentences' cues
 *                      (opinion wins over orientation when it has at least as many sentences);
 *  10. default       - any other declarative gives orientation (6).
 * The previous turn is context: assent after a proposal is agreement; after a question of fact
 * it answers the question.
 */

/** Every code the Bales rules can give (the category ids a codebook naming them must have). */
export const BALES_CODES = [
  "shows-solidarity",
  "shows-tension-release",
  "agrees",
  "gives-suggestion",
  "gives-opinion",
  "gives-orientation",
  "asks-orientation",
  "asks-opinion",
  "asks-suggestion",
  "disagrees",
  "shows-tension",
  "shows-antagonism",
  "none",
] as const;

export type BalesCode = (typeof BALES_CODES)[number];

/** Every rule id the Bales coder can report, with what it means (shown by docs and tests). */
export const BALES_RULES: Record<string, string> = {
  "none:empty": "the turn has no words (empty, only punctuation or non-laughter symbols)",
  "none:placeholder": "deleted message, media placeholder, join/leave notice or bare mention",
  "none:system": "a system turn (not said by a participant)",
  "antagonism:hostile": "insult, sarcasm or dismissive phrase aimed at another",
  "release:laughter": "laughter, 'haha', 'lol', playful emoji or relief ('phew')",
  "tension:strain": "confusion, stress, worry, apology for one's mistake, plea for help, withdrawal",
  "question:proposal": "a closing question that proposes an action ('shall we…', 'could you write…')",
  "question:opinion": "a closing question asking for evaluation or feeling ('what do you think?')",
  "question:suggestion": "a closing question asking what to do ('what should we…', 'any ideas?')",
  "question:information": "a closing question asking for facts, repetition or confirmation",
  "disagree:opening": "the turn opens with rejection or doubt ('no,', 'I don't think', 'but')",
  "disagree:phrase": "explicit disagreement phrase ('I disagree', 'that won't work')",
  "agree:marker": "the turn opens with assent ('yes', 'agreed', 'good point', 'sounds good')",
  "agree:phrase": "assent phrase in a short turn ('makes sense', 'works for me')",
  "agree:accept-proposal": "accepts the proposal just made ('let's do that', 'go ahead')",
  "agree:compliance": "complies or reports completion after a request ('will do', 'done')",
  "context:answer": "yes/no after a question of fact answers it (orientation)",
  "solidarity:offer-help": "a closing offer of help ('anything else I can help with?')",
  "solidarity:social": "thanks, praise, greeting, welcome, reassurance or encouragement",
  "suggestion:proposal": "proposal or direction ('let's', 'we could', 'I suggest', 'please', offers)",
  "suggestion:imperative": "a sentence opening with a base-form verb (an instruction)",
  "opinion:stance": "evaluation or stance ('I think', 'looks risky', 'I prefer')",
  "orientation:information": "information cues: numbers, links, files, reports, explanations",
  "orientation:declarative": "a plain declarative statement (default)",
};

export interface BalesDecision {
  code: BalesCode;
  rules: string[];
  rationale: string;
}

const decide = (code: BalesCode, rules: string[], rationale: string): BalesDecision => ({ code, rules, rationale });

/** Words that may precede the verb of an imperative ("please send", "Nova, check", "then run"). */
const imperativeLead = new Set(["please", "just", "also", "and", "then", "so", "now", "maybe", "first", "oh"]);

/** Auxiliaries open questions ("do we have…"), not imperatives, when a pronoun follows. */
const auxiliary = new Set(["do", "does", "did", "can", "could", "will", "would", "should", "shall", "have", "has", "be", "may", "might", "must"]);
const pronoun = new Set(["i", "we", "you", "they", "he", "she", "it", "this", "that", "there", "anyone", "someone", "everyone"]);

function isImperative(s: Sentence): boolean {
  let words = s.words;
  // Drop a leading vocative ("Nova, check the logs"): a single capitalised word followed by a comma.
  if (/^[A-Z][a-z]+, /.test(s.raw) && words.length > 2) words = words.slice(1);
  let i = 0;
  while (i < words.length && imperativeLead.has(words[i]!)) i++;
  const first = words[i];
  if (!first || words.length - i < 2) return false;
  // "Note: 3 of the 8…" is a label, not an instruction.
  if (new RegExp(`^(\\w+,? )?${first}:`).test(s.lower)) return false;
  if (auxiliary.has(first) && pronoun.has(words[i + 1]!)) return false;
  if (s.question) return false;
  return isImperativeVerb(first);
}

type QuestionKind = "proposal" | "opinion" | "suggestion" | "information";

function questionKind(s: Sentence): QuestionKind {
  const text = s.lower.replace(/^(so|ok|okay|and|also|then|hey|oh|hmm|well|sorry|wait),? /, "");
  if (P.askInfoRequest.test(text)) return "information";
  // "Any thoughts on how to handle X?" asks for a way of acting, not for an evaluation.
  if (P.askHow.test(text)) return "suggestion";
  if (P.askOpinion.test(text)) return "opinion";
  if (P.proposalQuestion.test(text)) return "proposal";
  if (P.askSuggestion.test(text)) return "suggestion";
  return "information";
}

const questionCode: Record<QuestionKind, BalesCode> = {
  proposal: "gives-suggestion",
  opinion: "asks-opinion",
  suggestion: "asks-suggestion",
  information: "asks-orientation",
};

/** A bullet or numbered list item ("- What do you…?", "2. Week 2: …"). */
const listItem = /^\s*([-*•]|\d+[.)])\s/;

/** "…, no?" / "…, right?" tags seek assent to the statement before them. */
const tagQuestion = /, (no|right|yes|correct|isn'?t it|don'?t you think)\?$/;

function lastSentence(t: TurnText): Sentence | undefined {
  return t.sentences[t.sentences.length - 1];
}

/** Code one turn. `previous` is the text of the preceding turn in the same session, if any. */
export function codeBales(text: string, previous?: string, speakerKind?: string): BalesDecision {
  const t = analyseText(text);
  const lower = t.lower;
  if (speakerKind === "system") return decide("none", ["none:system"], "system turn");
  if (P.laughter.test(lower) && P.onlySymbols.test(lower)) {
    return decide("shows-tension-release", ["release:laughter"], "laughter emoji");
  }
  if (t.words.length === 0) return decide("none", ["none:empty"], "no words");
  if (P.noneContent.test(lower)) return decide("none", ["none:placeholder"], "placeholder or notice, no act");

  if (P.antagonism.test(lower) || P.dismissiveStart.test(lower)) {
    return decide("shows-antagonism", ["antagonism:hostile"], "hostile or dismissive wording toward another");
  }
  const long = t.words.length > 30;
  const closingQuestion = t.sentences.at(-1)!.question;
  if (P.laughter.test(lower) && !long && !closingQuestion) {
    return decide("shows-tension-release", ["release:laughter"], "laughter or playful marker");
  }
  if (P.tension.test(lower)) return decide("shows-tension", ["tension:strain"], "expresses strain, confusion or a plea for help");

  // Questions inside a list or quotation are content ("I'd suggest asking: - What do you…?"),
  // not the speaker's own question; the turn's closing question is the last sentence outside them.
  const own = t.sentences.filter((s) => !listItem.test(s.raw) && !/^["'“]/.test(s.raw));
  const last = own.at(-1) ?? lastSentence(t)!;
  const first = t.sentences[0]!;
  if (last.question && !tagQuestion.test(last.lower)) {
    if (P.offerOfHelp.test(last.lower)) return decide("shows-solidarity", ["solidarity:offer-help"], "offers help");
    const kind = questionKind(last);
    return decide(questionCode[kind], [`question:${kind}`], `closing question (${kind})`);
  }

  // A question followed only by a short remark ("is the layout ok? I'm not sure about the font")
  // is still the act: the remark explains why it is asked.
  let questionIndex = own.length - 1;
  while (questionIndex >= 0 && !own[questionIndex]!.question) questionIndex--;
  if (questionIndex >= 0 && questionIndex < own.length - 1) {
    const after = own.slice(questionIndex + 1);
    const afterWords = after.reduce((n, s) => n + s.words.length, 0);
    if (afterWords <= 10 && !after.some((s) => P.suggestion.test(s.lower) || isImperative(s))) {
      const kind = questionKind(own[questionIndex]!);
      return decide(questionCode[kind], [`question:${kind}`], `question followed by a short remark (${kind})`);
    }
  }

  // Context: a yes/no right after a question of fact answers it; after a proposal or an
  // opinion question it accepts or rejects.
  const previousLast = previous === undefined ? undefined : analyseText(previous).sentences.at(-1);
  const previousFactQuestion = previousLast?.question === true && questionKind(previousLast) === "information";
  const bareYesNo = /^(yes|yeah|yep|no|nope|not yet|yes and no)\b/.test(first.lower);

  // Soft doubt ("I'm not sure this scales") rejects only when it reacts to a statement or a
  // proposal; opening a conversation or answering a question with it gives an opinion.
  const softDoubtOnly = P.softDoubt.test(first.lower) && (previousLast === undefined || previousLast.question);
  if ((P.disagreementStart.test(first.lower) || P.disagreementAnywhere.test(lower)) && !softDoubtOnly) {
    if (!(previousFactQuestion && bareYesNo)) {
      return decide("disagrees", [P.disagreementStart.test(first.lower) ? "disagree:opening" : "disagree:phrase"], "rejects or doubts what was said");
    }
  }

  const restText = t.sentences
    .slice(1)
    .map((s) => s.lower)
    .join(" ");
  const afterMarker = first.lower.replace(P.agreementStart, "").replace(/^[,.!\s]+/, "");
  const agreementOpens = P.agreementStart.test(first.lower);
  if (agreementOpens || (t.words.length <= 12 && P.agreementAnywhere.test(lower))) {
    const tail = [afterMarker, restText].filter(Boolean).join(" ");
    const tailWords = tail.split(" ").filter(Boolean).length;
    if (previousFactQuestion && bareYesNo) {
      return decide("gives-orientation", ["context:answer"], "answers the previous question of fact");
    }
    if (P.anaphoricAccept.test(tail)) return decide("agrees", ["agree:accept-proposal"], "accepts the proposal just made");
    if (P.solidarity.test(lower) && tailWords <= 10) {
      return decide("shows-solidarity", ["solidarity:social"], "assent with thanks or praise");
    }
    // "Done. I've replaced them…", "Sure, I'll send it today": assent followed by doing what was asked.
    const commits = /^(i'?ve|i have|i'?ll|i will) /.test(tail) && !/\b(but|however|instead)\b/.test(tail);
    if (tailWords === 0 || commits || (P.compliance.test(tail) && tailWords <= 10)) {
      return decide("agrees", [tailWords === 0 ? "agree:marker" : "agree:compliance"], "assents or complies");
    }
    // A short supporting remark keeps the turn an agreement; a long tail, new facts or a new
    // proposal ("agreed, but we should also…") is coded by its own act below.
    const newProposal = /\b(also|but|instead|and maybe|another|please)\b/.test(tail) && P.suggestion.test(tail);
    const newFacts = /\d/.test(tail) && tailWords > 6;
    if (!newProposal && !newFacts && tailWords < 10) {
      return decide("agrees", [agreementOpens ? "agree:marker" : "agree:phrase"], "assents; the rest restates or supports it");
    }
  } else if (P.compliance.test(first.lower) && t.words.length <= 12) {
    return decide("agrees", ["agree:compliance"], "complies with the request");
  }

  // An opening question addressed to someone by name ("Rosa, does anyone…? Alfama is steep.")
  // is the act; the sentences after it only explain why it is asked.
  if (first.question && t.sentences.length > 1 && /^[A-Z][a-z]+, /.test(first.raw)) {
    const kind = questionKind(first);
    return decide(questionCode[kind], [`question:${kind}`], `addressed question (${kind})`);
  }

  // Greetings come with introductions ("Hi all, I'm your AI teammate"): those are social too.
  const introduction = /\b(i'?m|i am|my name is|this is) (your|the|an?|\w+ from)\b|^(i'?m|i am) \w+[.!]?$/;
  const task = t.sentences.filter((s) => (!P.solidarity.test(s.lower) || s.words.length > 8) && !introduction.test(s.lower));
  // Mostly social sentences and no proposal or facts: the turn is about the relationship.
  const social = t.sentences.filter((s) => P.solidarity.test(s.lower)).length;
  const mostlySocial = social * 2 >= t.sentences.length && !t.sentences.some((s) => P.suggestion.test(s.lower) || P.orientation.test(s.lower));
  // "Thanks! Here is the file." is padding around information or a proposal: code the task act.
  const taskCue = task.some((s) => P.suggestion.test(s.lower) || P.orientation.test(s.lower));
  if (P.solidarity.test(lower) && (task.length === 0 || (t.words.length <= 14 && !taskCue) || mostlySocial)) {
    return decide("shows-solidarity", ["solidarity:social"], "thanks, praise, greeting or reassurance");
  }

  // "we need to know where to go" after an evaluation is reasoning, not a proposal: the weak
  // modals (need to, must) give way to an opinion cue in the same turn.
  const weakOnly = (s: Sentence) => P.weakSuggestion.test(s.lower) && !P.suggestion.test(s.lower.replace(new RegExp(P.weakSuggestion.source, "g"), ""));
  const suggestionSentence = t.sentences.find((s) => (P.suggestion.test(s.lower) && !(weakOnly(s) && P.opinion.test(lower))) || isImperative(s));
  if (suggestionSentence) {
    const rule = P.suggestion.test(suggestionSentence.lower) ? "suggestion:proposal" : "suggestion:imperative";
    return decide("gives-suggestion", [rule], "proposes or directs a course of action");
  }
  const opinionCount = t.sentences.filter((s) => P.opinion.test(s.lower)).length;
  const infoCount = t.sentences.filter((s) => P.orientation.test(s.lower) && !P.opinion.test(s.lower)).length;
  if (opinionCount > 0 && opinionCount >= infoCount) {
    return decide("gives-opinion", ["opinion:stance"], "evaluates or states a view");
  }
  if (infoCount > 0) return decide("gives-orientation", ["orientation:information"], "gives information");
  return decide("gives-orientation", ["orientation:declarative"], "plain statement (default)");
}

/** Turn types that are not said to the group (an agent's hidden reasoning, tool actions). */
const notSaid = new Set(["reasoning", "action", "system"]);

/**
 * Code turn `index` of a session. The context is the nearest earlier turn of the same session
 * that was said to the group (hidden reasoning, tool actions and system notices are skipped).
 */
export function codeBalesTurn(session: Session, index: number): BalesDecision {
  const turn = session.turns[index]!;
  const speaker = session.participants.find((p) => p.id === turn.speaker);
  const kind = turn.type === "system" ? "system" : speaker?.kind;
  let previous: string | undefined;
  for (let i = index - 1; i >= 0 && previous === undefined; i--) {
    const candidate = session.turns[i]!;
    if (!notSaid.has(candidate.type)) previous = candidate.text;
  }
  return codeBales(turn.text, previous, kind);
}
