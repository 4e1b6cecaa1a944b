/**
 * Small word lists for the pragmatic-style rules. They are short on purpose: each entry is a cue
 * a human rater would name, and the rule ids in every record say which list fired.
 */

const set = (words: string): Set<string> => new Set(words.trim().split(/\s+/));

/** Positive evaluation and affect words. */
export const positiveWords = set(`
  good great excellent amazing awesome wonderful fantastic perfect nice love loved like liked lovely happy glad
  pleased excited thanks thank thx appreciate appreciated helpful useful clever brilliant impressive solid
  clear clean cleaner easy easier fun enjoy enjoyed best better cool beautiful elegant reassuring comfortable
  charming strong success successful works worked fixed welcome congrats congratulations kind agree agreed
  sensible promising smooth fast faster win wins yay hooray phew relieved interesting honest valuable
`);

/** Negative evaluation and affect words. */
export const negativeWords = set(`
  bad terrible awful horrible hate hated annoying annoyed frustrating frustrated angry upset sad worried worry
  nervous stressed stressing exhausted tired broken fails failed failing failure bug bugs crash crashed error
  errors problem problems issue issues wrong worse worst slow painful confusing confused lost stuck ugh argh
  disaster mess messy cluttered risky risk concern concerns concerned useless stupid ridiculous unfortunately
  sorry difficult hard impossible late delay delayed blocking blocked tight generic boring disappointing
  disappointed afraid scared unfair silly hostile
`);

/** Words that strengthen the next evaluation word. */
export const intensifiers = set(`very really so super extremely incredibly totally absolutely truly highly completely`);

/** Words that flip the polarity of evaluation words within the next three words. */
export const negators = set(`not no never isn't aren't wasn't weren't don't doesn't didn't won't wouldn't can't cannot couldn't shouldn't nothing hardly`);

/** Chat slang and abbreviations: informal register. */
export const slang = set(`
  lol lmao rofl haha hahaha hehe omg btw tbh idk imo imho fyi gonna wanna gotta kinda sorta yeah yep yup nope nah
  ok okay k cool awesome hey hi yo dude guys pls plz thx ty np u ur ya cuz coz tho nvm brb asap wtf ugh meh
  yay woohoo oops whoa wow stuff super
`);

/** Formal vocabulary and connectives. */
export const formalWords = set(`
  therefore however furthermore moreover additionally consequently accordingly thus hence regarding
  concerning pursuant herewith hereby kindly sincerely regards respectfully dear attached enclosed
  receipt require requires required provide provided ensure shall whom whereas nevertheless notwithstanding
`);

/** Hedges and softeners: indirectness. */
export const hedgePhrases =
  /\b(maybe|perhaps|possibly|might|i think|i guess|i suppose|i feel like|kind of|sort of|a bit|a little|somewhat|just wondering|i was wondering|wondering if|if (that'?s|it'?s) ok(ay)?|if you don'?t mind|not sure|probably|it seems|seems like|would it be possible|do you think|could (we|you) (maybe|possibly)|at some point|no pressure|if possible)\b/g;

/** Markers of categorical, unmitigated statements. */
export const directMarkers =
  /\b(must|have to|has to|need to|needs to|definitely|clearly|obviously|absolutely|certainly|always|never|now|immediately|asap|right away|no way)\b/g;

/** Deference and status markers: hierarchical relationship. */
export const deferenceMarkers =
  /\b(sir|madam|ma'am|boss|mr\.?|mrs\.?|ms\.?|dr\.?|professor|may i|with your permission|as you wish|at your service|if you allow|yes sir|your call, sir|as instructed|as you requested)\b/g;

/** Commanding or status-asserting markers: hierarchical relationship from above. */
export const commandMarkers = /\b(you must|you need to|you have to|do what i|i told you|i said|that'?s an order|because i said|you will)\b/g;

/** Joint framing: equal relationship. */
export const jointMarkers =
  /\b(we|us|our|ours|let'?s|together|everyone|all of us|both of us|your call|what do you (all |both )?think|how do you feel|thoughts)\b/g;

/** Formal greetings, closings and politeness formulas. */
export const formalFormulas =
  /\b(dear (sir|madam|ms|mr|dr|colleagues|all|team)|kind regards|best regards|sincerely|yours (truly|faithfully)|please find attached|i would be (most )?grateful|would you be so kind|i would like to|thank you for your|i hope this (message|email) finds you|at your earliest convenience|please do not hesitate)\b/;

/** Contractions ("don't", "I'm", "we'll", "let's"), not possessives ("the client's"). */
export const contractions = /\b([a-z]+n't|i'm|(i|you|we|they|he|she|it|that|there|here|what|who|where|let)'(s|re|ve|ll|d))(?![a-z])/g;

export const emojiPattern = /\p{Extended_Pictographic}/gu;
