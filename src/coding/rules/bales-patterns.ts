/**
 * Cue patterns for the Bales IPA rules, one named pattern per cue so that each fired rule can
 * be reported by id. All patterns run on lower-cased text with straight apostrophes
 * (see text.ts). Word lists are deliberately small and readable: every entry is a cue a human
 * coder would also point to.
 */

/** Join a readable list of alternatives written "a | b | c" (inner groups use "|" without spaces). */
const any = (words: string): string =>
  words
    .trim()
    .split(/\s+\|\s+/)
    .join("|");

/** Laughter and playful markers (category 2). */
export const laughter = new RegExp(
  String.raw`(^|[^a-z])(ha(ha)+|hah|ha!|hehe+|lol+|lmao|rofl|xd|:d|;\)|:p|phew|ouch|yay|woo+hoo|woohoo)(?![a-z])|[\u{1F602}\u{1F923}\u{1F604}\u{1F606}\u{1F605}\u{1F601}\u{1F389}\u{1F3C6}\u{1F60A}\u{1F61C}\u{1F61D}\u{1F92A}\u{1F643}\u{1F609}\u{1F60E}\u{2615}\u{1F973}\u{1F38A}]`,
  "u",
);
/** A turn that is only emoji / punctuation. */
export const onlySymbols = /^[\p{Extended_Pictographic}\p{P}\p{S}\s\u200d\ufe0f]*$/u;

/** Empty, deleted, media placeholders, join/leave notices (category 13). */
export const noneContent =
  /^(\[?(message deleted|this message was deleted|deleted)\]?|<?media omitted>?|\.\.\.|…|\[?image\]?|\[?attachment\]?|\[?sticker\]?|@\w+|.* (joined|left) the (channel|chat|conversation|meeting))$/;

/** Insults and dismissive or hostile phrases aimed at the other (category 12). */
export const antagonism = new RegExp(
  String.raw`\b(${any(String.raw`
  idiot\w* | moron\w* | laziness | shut up | whatever\. |
  (you'?re|you are|your \w+ (is|are|was)|what an?|such an?|that'?s an?|this is an?) (so |really |completely |totally |just |such an? |a )?(stupid|dumb|ridiculous|pathetic|useless|incompetent|lazy|clueless|terrible|awful) |
  (stupid|dumb|ridiculous|idiotic|pathetic|silly|terrible|awful) (idea|question|suggestion|answer|plan|thing to say) | (that'?s|this is) (nonsense|rubbish|garbage|bs) |
  did you even | are you even | do you even | you always | you never | you clearly | not an intern | stop wasting | wasting my time | waste of (my )?time |
  just do what | do what i (said|told you) | i know what i'?m doing | i'?ll do it myself | you people | get a grip | calm down | seriously\? | who the hell |
  what the hell | wtf | you'?re wrong | you have no idea | test your code before | you literally | you constantly | you keep (breaking|ignoring|complaining) |
  complain about every\w* | that'?s my job | not my (job|problem) | i don'?t care | so you knew | (real|very|how) mature | grow up |
  next time (maybe |try to |just |please )?(read|listen|check|test|think|try) | thanks for nothing | nice of you to (finally|show)
  `)})`,
);
/** Leading "whatever" / "seriously?" dismissals. */
export const dismissiveStart = /^(whatever|seriously\?|wow, okay|oh please|yeah right)\b/;

/** Strain, confusion, anxiety, overload, withdrawal, pleas for help (category 11). */
export const tension = new RegExp(
  String.raw`\b(${any(String.raw`
  i'?m (so |completely |totally |a bit |a little |really |kind of |very )?(lost|confused|stressed|worried|nervous|anxious|overwhelmed|exhausted|tired|stuck|panicking|freaking out|scared|drowning) |
  i feel (a bit |so |really )?(silly|stupid|lost|overwhelmed|bad) | (this is|it'?s) (so )?(stressing|frustrating|driving me) |
  (i'?m|i am|i feel|feeling|getting|so|this is|it'?s) (so |really |very |a bit |a little )?(stressed|frustrat\w+) | ^(stressed|frustrat\w+) |
  nowhere near (ready|done|finished) | we'?re (so )?(behind|screwed|doomed) | no way we('ll| will)? (make|finish) |
  i have a bad feeling | i have no idea (why|what|how) | no idea why | my head is spinning | i give up | i need to step away | step away |
  drop off | double booked | have to (leave|go|run) | my (mistake|fault|bad) | i messed up | i screwed up | oh no | ugh+ | argh+ | (^|[.!?] )help!+ | can someone help |
  i don'?t (know|understand) (why|what|how) | keeps (happening|failing|breaking) | not again |
  (can|could) (someone|anyone|you) (please )?help (me)? | please help | i'?m sorry,? (i|everyone|all) | sorry,? i'?m | sorry\. i'?m | running out of time |
  won'?t make (it|the deadline) | nervous about | worried (about|that|we) | scared (of|that) | stressed about | a lot this week | this week has been
  `)})`,
);

/** Thanks, praise, greetings, encouragement, reassurance (category 1). */
export const solidarity = new RegExp(
  String.raw`\b(${any(String.raw`
  thanks | thank you | thx | ty | cheers | appreciate (it|that|you) | much appreciated | grateful |
  welcome | hi | hello | hey | good morning | good afternoon | nice to meet | great to meet | looking forward to (working|meeting|this) | glad (you|to have) | happy to (be here|help) |
  great (job|work|teamwork|collaboration) | nice (job|work|teamwork|one) | good (job|work) | well done | awesome work | amazing work | impressive |
  you'?re (both |all )?(the best|amazing|a star|a lifesaver|doing (great|an amazing|a great|well)) | you'?ll do great | you did great | you rock | kudos | congrat\w+ | bravo |
  no worries | no problem | don'?t worry | it happens | happens to (everyone|all of us|the best) | no pressure | i hear you | we'?ll manage | we all are |
  don'?t,? that'?s | that'?s kind | you (two |guys |all |both )?(are|'re) (great|amazing|awesome|the best|brilliant|stars|lifesavers|a great team) | means a lot | have a (good|great|nice) (weekend|day|evening) | talk soon | see you | bye | take care | sorry i (snapped|was rude) | apolog(y|ies) accepted | my apologies | i apologi[sz]e | we'?re all (under|in this|tired|stressed) | you'?ve (both |all )?(done|worked) (a lot|so much|great|well|hard) |
  we can do this | we'?ve got this | (is|are) doable | sorry (for|about) (being|snapping|my tone|the tone)
  `)})`,
);

/** Explicit agreement / acceptance / understanding (category 3). Anchored at a sentence start. */
export const agreementStart = new RegExp(
  String.raw`^((oh|ah|well|wow|hmm),? )?(${any(String.raw`
  yes | yes+ | yeah | yea | ya | yah | yep | yup | ofc | sure | sure thing | ditto | \+1 | ok | okay | k | alright | all right | right(?! (now|away|after|before|here|there)) | agreed | agree | i agree | exactly | absolutely | definitely | indeed | true | correct |
  fine | good point | fair point | good catch | looks good( to me)? | looks great( to me)? | lgtm | seems (good|fine) to me | good idea | great idea | nice idea | fair | fair enough | makes sense | that makes sense | sounds good | sounds great | sounds good to me |
  works for me | that works | fine by me | fine with me | perfect | great | good | cool | nice | got it | understood | will do | on it | noted | done | deal | same here | same |
  me too | of course | you'?re right | that'?s right | that'?s true | that'?s fair | that'?s a fair (point|concern) | i see | oh right | ah,? i see | of course | totally
  `)})(?![a-z'])`,
);
/** Agreement cues anywhere (weaker): "makes sense", "I agree", "that works for us". */
export const agreementAnywhere =
  /\b(i agree|agreed|makes sense|sounds good|looks (good|great|fine) to me|lgtm|that works( for (us|me))?|works for (us|me)|fine by me|good point|fair point|is growing on me|cover(s)? most of my concerns|that'?s reassuring|makes me (more|feel) (comfortable|better)|good enough|that'?s acceptable|that'?s fine|then it'?s fine|it'?s fine|(is|'s) fine (then|by me|with me))\b/;
/** "let's do that", "go with that": accepting a proposal just made. */
export const anaphoricAccept =
  /\b(let'?s (do|go with|keep|try) (that|it|this|them|those)( [a-z]+)?|i (really )?(like|love) (that|it|this)( idea| one)?[.!]*$|let'?s keep it|let'?s do it|do that|go ahead|go for it|yes,? please|i'?m in|count me in|(that|this) would help|it is\b)/;
/** Compliance or completion after a request: "I'll change that", "done", "added". */
export const compliance =
  /^(i'?ll (change|fix|do|remove|add|update|email|send|take care of|leave) (that|it|this|them|those|the)\b|i'?ve (moved|added|updated|changed|fixed|removed|done)|added( to| it)|moved|removed|updated|fixed it|will do|on it|noted|done)/;

/** Rejection, doubt or correction of what another said (category 10). */
export const disagreementStart = new RegExp(
  String.raw`^(${any(String.raw`
  no(?! (problem|worries|pressure|doubt|rush|need)) | nope | nah | not really | i disagree | i don'?t agree | disagree | i don'?t think | i do not think | i'?m not sure | i am not sure | not sure |
  i'?m not convinced | not convinced | i doubt | but | however | actually,? (that|it|this|no|we|the) | wait | fine,? but | ok,? but | okay,? but |
  i wouldn'?t | i'?d skip | i'?d rather not | that'?s not (true|right|correct|what) | that won'?t work | hmm,? not | not (a good idea|quite|exactly)
  `)})(?![a-z'])`,
);
export const disagreementAnywhere =
  /\b(i disagree|i don'?t agree|i don'?t think (that|so|this|it|we|the|you)|i'?m not (sure|convinced) (that|this|it|we|the|about)|that'?s not (true|right|correct|what)|won'?t work|not a good idea|that'?s wrong|i doubt (that|it)|isn'?t (right|true|correct)|wouldn'?t bet|(that|this|it) doesn'?t mean (that|they|we|it|you))\b/;

/** Suggestions, proposals, directions (category 4). */
export const suggestion = new RegExp(
  String.raw`(^|\b)(${any(String.raw`
  let'?s | let us | we (could|should|might|must|need to|ought to) | why don'?t (we|you) | how about | what about (we|trying|using|adding) | what if (we|you|new|the|users)? |
  i (suggest|recommend|propose) | i'?d (suggest|recommend|propose|lean|go with|start) | i would (suggest|recommend|propose) | my suggestion | i'?d (say )?(we|you) should |
  (one|another|an) (option|idea|alternative|approach) (is|would be) | another idea | (a|one|another) (quick )?idea: | the (quickest|best|simplest|easiest|safest) (fix|way|option|approach) (is|would be) |
  you (could|should|might want to|may want to) | maybe (we|you) (could|should) | maybe try | try (to|using|adding|clearing) | it might be worth | consider |
  please | make sure | don'?t forget | remember to | shall we | could you | can you | would you (mind|like me to) | i can (take|do|prepare|draft|send|handle|look|write) |
  i'?ll (draft|prepare|send|take|write|put|set up|schedule|share|format|look|handle|create|make|book|ask|email|follow up|check|run) | i could (move|prepare|draft|send|take|write|do) |
  here'?s (a|my|the|our) (proposed |suggested |draft |rough )?(plan|schedule|proposal|approach|suggestion|outline|timeline|agenda) | proposed (plan|schedule|timeline|agenda) |
  (the next step|next steps|the plan) (is to|would be to|are to|is:) | (could|should|can) (be )?(move|moved|wait|postponed|cut|dropped|slip|pushed|deferred|parked) | i need (you to|someone to|a|an) | i want (you to|us to)
  `)})(?![a-z])`,
);

/** Requests for information phrased as requests (category 7), not for action. */
export const askInfoRequest =
  /\b(can|could|would) you (please |also |maybe |just |quickly )*(tell|remind|explain|clarify|confirm|let me know|say|share what|check whether|check if)\b|\bwhat do you mean\b|\bwhat does .* mean\b/;

/** Questions asking for evaluation or feeling (category 8). */
export const askOpinion =
  /\b(what do (you|u|y'?all) (all |both |guys )?think|do (you|u) (guys |all |both )?think|what are your thoughts|thoughts\b|how do you feel|how does (that|this|it) feel|do you (like|prefer|agree|think)|does (everyone|everybody|anyone) agree|do we agree|in your (view|opinion)|your (take|opinion|view)|which (one )?do you prefer|which one do you like|what'?s your (\w+ )?(take|opinion|view|preference|feeling|sense|impression|gut feeling)|what do you make of|is (it|this|that) (a )?(good|bad|better|worse|too|ok|okay|fine|enough|clear|confusing|right)|does (it|this|that|everything) (look|seem|sound|feel) (good|right|ok|okay|fine|clear)|(look|seem|sound|feel)s? (good|right|ok|okay|fine|too \w+)\??$|or (is|does) it (feel )?too|how (risky|good|bad|important|useful|hard|difficult|realistic) is|do you think|would you say|any (feedback|concerns|objections)|how did (it|that) go|(do|does|did) (you|u|anyone|everyone|anybody|somebody|someone) (\w+ )?think|worth the (effort|time|cost|trouble)|(is|are|was|would|does|do) [^.!?]{0,80}\b(enough|worth it|a good idea|ok for|okay for|fine for|good for|too (much|many|long|big|small|slow|expensive)))\b/;

/** Questions asking what to do (category 9). */
export const askSuggestion =
  /\b(what should (we|i)|what (do|would|could) (we|i) (do|try)|how (should|could|can|do|would|might) (we|i)\b|any (ideas|suggestions|recommendations|tips)|ideas\?|suggestions\?|where (should|do) (we|i) (start|begin)|what would you (recommend|suggest|do)|what do you (recommend|suggest)|who wants to|who (can|could|will) take|should (we|i)\b|which (ones|one|option|approach)s? (should|fit|do we)|what (can|could) we (do|change|improve)|anything else (we|i) should|what'?s the (best|right) (way|approach)|what (goes|should go)|how do (you|we) want to|which \w+ (should|can|could|do) (we|i)|(where|when) (should|do|shall|can) we (put|show|place|add|schedule|do|hold|meet|start|begin|draw|go)|should (the|this|that|it|they) \w+ (be|go)\b|what (are|should|do) we (building|doing|making|working on|going to (do|build|make)))\b/;

/** A question that itself proposes an action ("shall we start?", "would you like me to...?"). */
export const proposalQuestion =
  /^((?!(what|which|who|whom|how|when|where|why)\b)\w+,? )?(why don'?t (we|you)|how about|what if|shall (we|i)|would you like (me|us) to|should i go ahead|want me to|do you want me to|(can|could|would) you (please |also |maybe |just |quickly )*(?!tell|remind|explain|clarify|confirm|let me know)\w+)/;

/** A closing offer of help is solidarity ("gives help"), not a question for information. */
export const offerOfHelp = /\b(anything else (i|we) can (help|do)|(can|may) i help|how can i help|is there anything (else )?i can)\b/;

/** Opinion markers: stance verbs, hedged judgements (category 5). */
export const opinion = new RegExp(
  String.raw`\b(${any(String.raw`
  i think | i feel | i believe | i guess | i suppose | in my (opinion|view|experience) | imo | imho | honestly | personally | to be honest | i'?d prefer | i prefer |
  i (like|love|hate|dislike|prefer) | i'?m (not )?(a fan|worried|excited|happy|glad|surprised) | i hope | i wish | i'?d rather | doesn'?t surprise | surprises me |
  (is|are|was|were|'s|'re|looks|seems|sounds|feels|seem|look|sound|feel) (a bit |kind of |really |very |much |quite |too |so |pretty |a little |more |less |still )*(good|great|nice|clean|cleaner|clear|clearer|clever|strong|solid|sensible|risky|generic|cluttered|confusing|messy|long|short|expensive|cheap|slow|fast|better|worse|best|worst|easier|harder|catchy|catchier|charming|old-fashioned|honest|valuable|important|useful|useless|obvious|promising|interesting|boring|annoying|painful|excellent|perfect|fine|ok|okay|reasonable|realistic|unrealistic|elegant|simple|complicated|complex|user-hostile|hostile|fair|unfair|weird|odd|smart|helpful|impressive|huge|low|high|tight|lower|higher|small|big|large|tiny|pricey|steep|ugly|pretty|fun|overwhelming|accurate|enough|busy|crowded) |
  (worries|bothers|concerns|scares|surprises) me | (the )?most (valuable|important|useful|urgent|critical|interesting|promising) | (the |a )?top priority | i'?d estimate | (is|'s) a (long|short) time |
  tbh | (could|might|would|should) (work|stand out|help|be better|be worse) | (sounds|seems|feels) (more |less |really |so |pretty |kinda |very )?[a-z]+ |
  (has|have|needs?) to be (number|ranked|the|first|second|third|last|higher|lower|top|at) | no question | for sure | i'?d (rank|put|place|rate) |
  ^(pretty|very|really|quite|super|not that|not very|fairly|extremely) (important|useful|essential|critical|useless|good|bad|helpful|relevant|necessary|risky) |
  (more|less) \w+ than | (?!(later|earlier|other|rather|over|under|after|ever|never|either|neither|whether|number|fewer|older|younger|sooner)\b)\w{3,}er than | (the )?\w{3,}est (candidate|option|one|choice|idea|solution|approach|design|version|plan) | matters (more|less|most|a lot) | (is|are) (key|crucial|essential|critical|vital) |
  (is|are|'s) (a|the) (concern|problem|risk|worry|red flag|dealbreaker|strength|weakness) | (was|were) (great|good|bad|terrible|awesome|excellent|amazing|chaos|a mess) |
  i'?m not sure | not sure (that|this|it|if|whether|we) | i doubt |
  probably | likely | i'?d say | seems like | looks like | feels like | sounds like | (a|the) (strong|clear|good|bad|big|huge) (signal|start|idea|improvement|problem|point) | the (biggest|main|most \w+) (one|issue|problem|risk)|
  much more | too (long|short|packed|generic|expensive|slow|old|young|risky|much) | makes (more|less) sense | worth it | not worth | tells us | that'?s (clever|smart|great|good|a good|bad|strong|huge|lower|higher|nice) |
  (is|are) (clearly|definitely|obviously) | (is|are|'s) (usually |probably |not |often |rarely |hardly )?enough | i wouldn'?t | won'?t scale | doesn'?t scale | could (hammer|break|slow)
  `)})(?![a-z])`,
);

/** Information cues: numbers, links, files, reports, explanations (category 6). */
export const orientation =
  /(\d|https?:\/\/|www\.|\.(com|org|io|app|pdf|csv|docx?|xlsx?|png|jpg)\b|\b(here'?s|here are|here is|for reference|for context|to clarify|fyi|according to|the (log|logs|error|results?|data|spec|report) (says|shows)|i (looked|checked|found|pushed|uploaded|merged|ran|tested|added|updated|fixed|deployed)|i'?ve (uploaded|pushed|merged|shared|sent|attached|updated|added)|attached|it means|that means|because|since|which means|currently|right now|we have|there (is|are|was|were))\b)/;

/** Modals that propose only weakly ("we need to", "we must"): an opinion in the turn outranks them. */
export const weakSuggestion = /\bwe (need to|must|have to)\b/;

/** Questions about how to act, which outrank opinion cues in the same question. */
export const askHow = /\b(how to|how (should|could|can|do|would|might|shall) (we|i))\b/;

/** Doubt without outright rejection: disagreement only as a reaction to a statement or proposal. */
export const softDoubt = /^(hmm,? )?(i'?m not sure|i am not sure|not sure|i'?m not convinced|not convinced|i doubt)\b/;
