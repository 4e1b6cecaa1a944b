/**
 * Utterance pools for the synthetic demo study, keyed by Bales category id. Each line is what
 * a human client or an AI team member might plausibly write while building a small game
 * together. The category is the one a trained coder would give the line; the generator uses
 * it as the demo's "human" code. Everything here is invented (clearly synthetic).
 */
export type Speaker = "client" | "agent";

export const teamPools: Record<string, Record<Speaker, string[]>> = {
  "shows-solidarity": {
    client: [
      "Thank you all, this is really coming together nicely.",
      "Great work, team. I appreciate how quickly you turned that around.",
      "You've been super helpful, thanks for walking me through it.",
      "Nice job on the menu screen, it looks lovely!",
    ],
    agent: [
      "Thanks for the clear feedback, Maya, that helps us a lot.",
      "Great teamwork everyone, we're in good shape.",
      "Well done on the collision code, Developer.",
      "Thank you for your patience while we sorted this out.",
      "Excellent point from the Product Manager, thanks for raising it.",
    ],
  },
  "shows-tension-release": {
    client: ["Haha, I love that the snake wears a tiny hat 😄", "lol ok that bug is actually kind of funny", "Ha! Fair enough."],
    agent: ["Haha, the snake did get a bit too fast there 😄", "lol, we'll call that a feature for now.", "Ha, good catch, that would have been embarrassing."],
  },
  agrees: {
    client: ["Yes, that works for me.", "Agreed, let's keep it simple.", "Sounds good.", "Exactly, that's what I had in mind.", "Okay, I'm fine with that."],
    agent: [
      "Agreed, a 20x20 grid is a sensible default.",
      "Yes, I concur with the Product Manager's plan.",
      "Sounds good to me.",
      "Exactly right, that matches the requirements.",
      "I agree, we should ship the core loop first.",
      "Understood, I'll follow that approach.",
    ],
  },
  "gives-suggestion": {
    client: [
      "Let's add a high score table at the end.",
      "Maybe we should make the colours brighter.",
      "Please add a pause button.",
      "Could you make the game start on the space bar?",
    ],
    agent: [
      "Let's split the work: I'll build the game loop and the Product Manager writes the user stories.",
      "We should add a settings screen for the speed.",
      "I suggest we use a canvas element rather than DOM nodes for rendering.",
      "Let's write unit tests for the collision logic before adding levels.",
      "We could store the high scores in local storage.",
      "I propose we release a first playable version by the end of the session.",
      "Developer, please implement the arrow-key controls next.",
    ],
  },
  "gives-opinion": {
    client: [
      "I think the current speed is a bit too fast for beginners.",
      "Honestly, the green on black looks dated to me.",
      "I feel the sound effects are distracting.",
      "In my opinion the levels should get harder gradually.",
    ],
    agent: [
      "I think a grid-based design will be easier to test.",
      "In my view the menu is cluttered; fewer options would be clearer.",
      "I believe the scoring rule is fair, but the bonus food may be too generous.",
      "This approach seems more maintainable than a single large file.",
      "I feel we are over-engineering the settings screen.",
      "The current architecture looks solid to me.",
    ],
  },
  "gives-orientation": {
    client: [
      "The game is for my nephew, he's eight.",
      "It needs to run in a browser on an old laptop.",
      "Our deadline is Friday.",
      "I already have a logo we can use, I'll attach it.",
    ],
    agent: [
      "The game loop now runs at 10 frames per second.",
      "I've pushed the first version: arrow keys move the snake and eating food adds one segment.",
      "The requirements document lists three levels and a high score table.",
      "For context, canvas rendering is supported by every modern browser.",
      "Status update: collision detection is done, sound is next.",
      "The build passes all 14 unit tests.",
      "Here is the file structure: main.js, game.js, renderer.js and tests/.",
    ],
  },
  "asks-orientation": {
    client: ["Where do I download the game?", "How do I run it on my computer?", "What does the yellow square mean?", "When will the next version be ready?"],
    agent: [
      "Which browsers does your nephew use?",
      "Maya, can you tell us how old the laptop is?",
      "What is the deadline for the first version?",
      "Developer, which library are you using for the sound?",
      "Could you clarify whether the game should work on phones too?",
    ],
  },
  "asks-opinion": {
    client: ["What do you think of the new colours?", "Is the speed okay in your view?", "How do you feel about adding levels?"],
    agent: [
      "Maya, what do you think of the menu layout?",
      "How do you feel about the current difficulty?",
      "Product Manager, does this match your reading of the requirements?",
      "Do you think the sound effects fit the style?",
      "Any thoughts on the colour scheme?",
    ],
  },
  "asks-suggestion": {
    client: ["What should we do about the slow loading?", "How could we make it more fun?", "Any ideas for a name?"],
    agent: [
      "How should we handle the snake hitting the wall?",
      "What would you like us to work on next?",
      "Any ideas on how to make the levels different?",
      "What should we prioritise before Friday?",
      "How could we reduce the loading time?",
    ],
  },
  disagrees: {
    client: ["No, I don't want ads in it.", "I disagree, the grid is too small.", "That's not what I asked for."],
    agent: [
      "I disagree; adding multiplayer now would delay the release.",
      "No, local storage is not suitable for sharing scores between devices.",
      "I'm not sure that's right: the tests still fail on Firefox.",
      "That won't work, the canvas size is fixed at 400 pixels.",
    ],
  },
  "shows-tension": {
    client: ["Sorry, I'm a bit lost with all the technical terms.", "I'm worried we won't finish in time.", "Hmm, I'm confused, which file do I open?"],
    agent: [
      "Apologies, I'm not sure how to proceed without the logo file.",
      "I'm concerned we are running out of time for testing.",
      "Sorry, I got confused by the two versions of the requirements.",
    ],
  },
  "shows-antagonism": {
    client: ["This is the third time I've asked for the pause button.", "Frankly this version is worse than the last one."],
    agent: ["That request makes no sense for a game of this size.", "As I already said twice, the grid size is fixed."],
  },
};

/** Category weights per condition: the manipulation the demo study is about. */
export const conditionWeights: Record<string, Record<string, number>> = {
  control: {
    "shows-solidarity": 3,
    "shows-tension-release": 1,
    agrees: 6,
    "gives-suggestion": 6,
    "gives-opinion": 4,
    "gives-orientation": 10,
    "asks-orientation": 3,
    "asks-opinion": 1,
    "asks-suggestion": 1,
    disagrees: 1,
    "shows-tension": 1,
    "shows-antagonism": 0.3,
  },
  socratic: {
    "shows-solidarity": 3,
    "shows-tension-release": 1,
    agrees: 4,
    "gives-suggestion": 4,
    "gives-opinion": 5,
    "gives-orientation": 6,
    "asks-orientation": 5,
    "asks-opinion": 5,
    "asks-suggestion": 4,
    disagrees: 2,
    "shows-tension": 1,
    "shows-antagonism": 0.3,
  },
  critical: {
    "shows-solidarity": 1.5,
    "shows-tension-release": 1,
    agrees: 3,
    "gives-suggestion": 5,
    "gives-opinion": 7,
    "gives-orientation": 7,
    "asks-orientation": 2,
    "asks-opinion": 2,
    "asks-suggestion": 1,
    disagrees: 4,
    "shows-tension": 2,
    "shows-antagonism": 1,
  },
};

/** Instruction appended to the agents' shared instructions in each condition (session metadata). */
export const conditionInstructions: Record<string, string> = {
  control: "(no extra instruction)",
  socratic: "Ask the client and each other questions before committing to a decision.",
  critical: "Challenge each other's proposals and point out weaknesses before agreeing.",
};

/** Brainstorm contributions for the ideation subset: main idea -> elaborations. */
export const ideationTopics: { idea: string; elaborations: string[] }[] = [
  {
    idea: "We could turn an old umbrella into a greenhouse cover for seedlings.",
    elaborations: [
      "The fabric would keep frost off the small plants.",
      "You could clip the umbrella spokes into the soil as stakes.",
      "A clear umbrella would let more sunlight through.",
    ],
  },
  {
    idea: "A paperclip makes a decent phone stand if you bend it right.",
    elaborations: [
      "Two paperclips give a more stable base.",
      "You can angle the stand for video calls.",
      "Wrap the paperclip in tape so it doesn't scratch the phone.",
    ],
  },
  {
    idea: "Use a shoebox as a pinhole camera.",
    elaborations: [
      "Tape photographic paper on the inside of the lid.",
      "The pinhole could be made with a needle through aluminium foil.",
      "Kids could use it to watch a solar eclipse safely.",
    ],
  },
  {
    idea: "Empty bottles can become a drip irrigation system.",
    elaborations: [
      "Poke small holes in the cap and bury the bottle neck down.",
      "A bottle per plant keeps the soil moist for days.",
      "Coloured bottles make the garden look playful.",
    ],
  },
  { idea: "Old keys could be melted into wind chimes.", elaborations: ["Different key sizes make different notes.", "Hang them from a driftwood branch."] },
  {
    idea: "A spoon can be a garden marker.",
    elaborations: ["Stamp the plant name into the bowl of the spoon.", "Vintage spoons from a flea market look charming."],
  },
  {
    idea: "Use a muffin tin to sort screws and small parts.",
    elaborations: ["Each cup holds one screw size.", "A magnet under the tin keeps the screws from spilling."],
  },
  { idea: "A brick could be a doorstop or a bookend.", elaborations: ["Paint the brick and wrap it in fabric.", "Stack two bricks for heavy art books."] },
];
