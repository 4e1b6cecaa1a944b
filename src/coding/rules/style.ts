import * as L from "./style-lexicon.js";
import * as P from "./bales-patterns.js";
import { analyseText, isImperativeVerb, type TurnText } from "./text.js";

/**
 * Pragmatic style by rules: five 7-point ratings (codebooks/pragmatic-style.json). Every scale
 * starts at its neutral midpoint 4 and moves one step per cue (capped), so each rating can be
 * explained by the cues listed in the record's rule ids. The step sizes are judgement calls,
 * documented next to each cue; they are deliberately coarse (this is a baseline).
 */

/** The scales the style rules rate (the scale ids a codebook naming them must have). */
export const STYLE_SCALES = ["sentiment", "formality", "directness", "relationship", "participation"] as const;

export interface StyleDecision {
  scores: Record<(typeof STYLE_SCALES)[number], number>;
  rules: string[];
  rationale: string;
}

const clamp = (value: number): number => Math.max(1, Math.min(7, Math.round(value)));
const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

interface Scale {
  value: number;
  why: string[];
}

function scale(): Scale {
  return { value: 4, why: [] };
}

/** Sentiment: positive minus negative words (negation flips, intensifiers and "!" amplify). */
function sentiment(t: TurnText, rules: string[]): Scale {
  const s = scale();
  let pos = 0;
  let neg = 0;
  let negatedAt = -10;
  let boost = 1;
  let flips = 0;
  t.words.forEach((w, i) => {
    if (L.negators.has(w)) {
      negatedAt = i;
      return;
    }
    if (L.intensifiers.has(w)) {
      boost = 1.5;
      return;
    }
    const polarity = L.positiveWords.has(w) ? 1 : L.negativeWords.has(w) ? -1 : 0;
    if (polarity === 0) return;
    const negated = i - negatedAt <= 3;
    if (negated) flips++;
    const flipped = negated ? -polarity : polarity;
    if (flipped > 0) pos += boost;
    else neg += boost;
    boost = 1;
  });
  if (P.laughter.test(t.lower)) pos += 1;
  if (P.antagonism.test(t.lower)) neg += 2;
  let net = pos - neg;
  if (net !== 0 && /!/.test(t.lower)) net += Math.sign(net) * 0.5;
  if (pos > 0) rules.push("sentiment:positive-words");
  if (neg > 0) rules.push("sentiment:negative-words");
  if (flips > 0) rules.push("sentiment:negation");
  // One net cue moves one point; two or more move two; three or more reach the end of the scale.
  s.value = clamp(4 + Math.sign(net) * Math.min(3, Math.ceil(Math.abs(net) - 0.01)));
  s.why.push(`+${pos} / -${neg}`);
  return s;
}

/** Formality: informal cues (slang, contractions, emoji, lower-case chat) vs formal ones. */
function formality(t: TurnText, rules: string[]): Scale {
  const s = scale();
  const slang = t.words.filter((w) => L.slang.has(w)).length;
  const contractions = count(t.lower, L.contractions);
  const emoji = count(t.raw, L.emojiPattern);
  const formal = t.words.filter((w) => L.formalWords.has(w)).length;
  let v = 4;
  if (slang > 0) {
    v -= Math.min(2, slang);
    rules.push("formality:slang");
  }
  if (contractions > 0) {
    v -= contractions >= 2 ? 1 : 0.5;
    rules.push("formality:contractions");
  }
  if (emoji > 0 || P.laughter.test(t.lower)) {
    v -= 1;
    rules.push("formality:emoji-laughter");
  }
  if (/[!?]{2,}/.test(t.raw)) {
    v -= 0.5;
    rules.push("formality:repeated-punctuation");
  }
  if (t.words.length >= 3 && t.raw === t.raw.toLowerCase() && /[a-z]/.test(t.raw)) {
    v -= 1;
    rules.push("formality:no-capitals");
  }
  if (L.formalFormulas.test(t.lower)) {
    v += 2;
    rules.push("formality:formal-formula");
  }
  if (formal > 0) {
    v += Math.min(2, formal);
    rules.push("formality:formal-vocabulary");
  }
  if (/\bplease\b|\bcould you\b|\bwould you\b/.test(t.lower)) {
    v += 0.5;
    rules.push("formality:politeness");
  }
  if (t.words.length >= 12 && contractions === 0 && slang === 0 && emoji === 0) {
    v += 1;
    rules.push("formality:complete-register");
  }
  s.value = clamp(v);
  return s;
}

function imperativeOpening(t: TurnText): boolean {
  return t.sentences.some((s) => {
    const words = s.words[0] === "please" || s.words[0] === "just" ? s.words.slice(1) : s.words;
    return words.length >= 2 && isImperativeVerb(words[0]!);
  });
}

/** Directness: hedges and question-requests lower it; imperatives and categorical words raise it. */
function directness(t: TurnText, rules: string[]): Scale {
  const s = scale();
  const hedges = count(t.lower, L.hedgePhrases);
  const direct = count(t.lower, L.directMarkers);
  let v = 4;
  if (hedges > 0) {
    v -= Math.min(3, hedges);
    rules.push("directness:hedges");
  }
  if (/\b(could|would|can) you\b|\bwould you mind\b/.test(t.lower)) {
    v -= 0.5;
    rules.push("directness:question-request");
  }
  if (imperativeOpening(t)) {
    v += 2;
    rules.push("directness:imperative");
  }
  if (direct > 0) {
    v += Math.min(2, direct);
    rules.push("directness:categorical");
  }
  if (/^(no|nope|wrong)[.!]/.test(t.lower)) {
    v += 1;
    rules.push("directness:bare-rejection");
  }
  if (/!/.test(t.raw) && (imperativeOpening(t) || direct > 0)) v += 0.5;
  s.value = clamp(v);
  return s;
}

/** Relationship: deference and commands push toward hierarchy (1); joint framing toward equality (7). */
function relationship(t: TurnText, rules: string[]): Scale {
  const s = scale();
  const deference = count(t.lower, L.deferenceMarkers);
  const commands = count(t.lower, L.commandMarkers);
  const joint = count(t.lower, L.jointMarkers);
  let v = 4;
  if (deference > 0) {
    v -= 1 + Math.min(1, deference - 1);
    rules.push("relationship:deference");
  }
  if (commands > 0) {
    v -= 1 + Math.min(1, commands - 1);
    rules.push("relationship:command");
  }
  if (imperativeOpening(t) && !/\bplease\b/.test(t.lower)) {
    v -= 1;
    rules.push("relationship:bare-imperative");
  }
  if (joint > 0) {
    v += Math.min(2, joint);
    rules.push("relationship:joint-framing");
  }
  if (/\blet'?s\b|\btogether\b/.test(t.lower)) {
    v += 1;
    rules.push("relationship:collaborative-proposal");
  }
  s.value = clamp(v);
  return s;
}

/** Participation: length in words sets the base; questions and proposals add initiative. */
function participation(t: TurnText, rules: string[]): Scale {
  const s = scale();
  const n = t.words.length;
  // Length bands (words): backchannel, short reply, brief answer, ordinary, substantive, long.
  let v = n <= 2 ? 1 : n <= 5 ? 2 : n <= 12 ? 3 : n <= 25 ? 4 : n <= 50 ? 5 : 6;
  rules.push(`participation:length-${n <= 2 ? "token" : n <= 5 ? "short" : n <= 12 ? "brief" : n <= 25 ? "ordinary" : n <= 50 ? "substantive" : "long"}`);
  const questions = t.sentences.filter((x) => x.question).length;
  const proposals = t.sentences.filter((x) => P.suggestion.test(x.lower)).length + (imperativeOpening(t) ? 1 : 0);
  const initiative = questions + proposals;
  if (initiative > 0 && n > 2) {
    v += initiative >= 3 ? 2 : 1;
    rules.push("participation:initiative");
  }
  s.value = clamp(v);
  return s;
}

/** Rate a turn's pragmatic style on the five scales. */
export function codeStyle(text: string): StyleDecision {
  const t = analyseText(text);
  const rules: string[] = [];
  const sent = sentiment(t, rules);
  const scores = {
    sentiment: sent.value,
    formality: formality(t, rules).value,
    directness: directness(t, rules).value,
    relationship: relationship(t, rules).value,
    participation: participation(t, rules).value,
  };
  const cues = rules.length > 0 ? rules.join(", ") : "no cues (all scales at the neutral midpoint)";
  const rationale = `sentiment ${scores.sentiment} (words ${sent.why.join("")}), formality ${scores.formality}, directness ${scores.directness}, relationship ${scores.relationship}, participation ${scores.participation}; cues: ${cues}`;
  return { scores, rules, rationale };
}

/** Every rule id the style coder can report, with its meaning. */
export const STYLE_RULES: Record<string, string> = {
  "sentiment:positive-words": "positive evaluation or affect words (or laughter), +1 point per net cue",
  "sentiment:negative-words": "negative evaluation or affect words (or hostility), -1 point per net cue",
  "sentiment:negation": "a negator within three words flipped a word's polarity",
  "formality:slang": "chat slang or abbreviations (lol, gonna, yeah), -1 each, at most -2",
  "formality:contractions": "contractions (don't, I'm), -0.5 for one, -1 for several",
  "formality:emoji-laughter": "emoji or laughter, -1",
  "formality:repeated-punctuation": "'!!' or '??', -0.5",
  "formality:no-capitals": "all lower case, -1",
  "formality:formal-formula": "formal greeting, closing or politeness formula, +2",
  "formality:formal-vocabulary": "formal connectives and vocabulary (therefore, regarding), +1 each, at most +2",
  "formality:politeness": "please / could you / would you, +0.5",
  "formality:complete-register": "12+ words without contractions, slang or emoji, +1",
  "directness:hedges": "hedges and softeners (maybe, I think, a bit), -1 each, at most -3",
  "directness:question-request": "a request put as a question (could you…), -0.5",
  "directness:imperative": "a sentence opens with an imperative verb, +2",
  "directness:categorical": "categorical or urgent words (must, definitely, now), +1 each, at most +2",
  "directness:bare-rejection": "opens with a bare 'No.', +1",
  "relationship:deference": "titles, 'sir', permission-seeking, -1 (two or more: -2)",
  "relationship:command": "'you must', 'do what I say', -1 (two or more: -2)",
  "relationship:bare-imperative": "an imperative without 'please', -1",
  "relationship:joint-framing": "we / us / our / together / asking the others' view, +1 each, at most +2",
  "relationship:collaborative-proposal": "'let's' or 'together', +1",
  "participation:length-token": "1-2 words: base 1",
  "participation:length-short": "3-5 words: base 2",
  "participation:length-brief": "6-12 words: base 3",
  "participation:length-ordinary": "13-25 words: base 4",
  "participation:length-substantive": "26-50 words: base 5",
  "participation:length-long": "more than 50 words: base 6",
  "participation:initiative": "asks questions or proposes actions, +1 (three or more: +2)",
};
