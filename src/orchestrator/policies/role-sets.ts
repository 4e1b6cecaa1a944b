/**
 * Role sets shipped with Colloquy for the round-based strategy (written by us): a set of
 * diverse professional perspectives, and de Bono's six thinking hats.
 */
export interface RoleSpec {
  name: string;
  description: string;
}

export const roleSets: Record<"professions" | "six-hats" | "llm-discussion", RoleSpec[]> = {
  professions: [
    { name: "Environmentalist", description: "You are an environmentalist: you judge ideas by their ecological footprint and reuse potential." },
    { name: "Creative Professional", description: "You are a creative professional (artist, designer): you look for surprising, aesthetic and playful uses." },
    { name: "Futurist", description: "You are a futurist: you imagine how ideas scale, combine with new technology and change daily life." },
    { name: "Engineer", description: "You are an engineer: you check feasibility, materials, safety and how something would actually be built." },
    { name: "Educator", description: "You are a teacher: you look for ideas that help people learn and that children could try safely." },
  ],
  "six-hats": [
    { name: "White Hat", description: "White hat: focus on facts, data and what information is missing." },
    { name: "Red Hat", description: "Red hat: express feelings, intuitions and gut reactions without justifying them." },
    { name: "Black Hat", description: "Black hat: be the careful critic; point out risks, weaknesses and why something may not work." },
    { name: "Yellow Hat", description: "Yellow hat: look for benefits, value and the optimistic case." },
    { name: "Green Hat", description: "Green hat: generate new ideas, alternatives and creative leaps." },
    { name: "Blue Hat", description: "Blue hat: manage the thinking process; summarise, organise and decide next steps." },
  ],
  /**
   * LLM Discussion (Lu et al., 2024): the roles of its published four-agent run (its logs and
   * leaderboard name "Environmentalist-CreativeProfessional-Futurist-Futurist"), one per agent,
   * the Futurist twice. The names and specialties are the paper's; the descriptions are our wording.
   */
  "llm-discussion": [
    {
      name: "Environmentalist",
      description:
        "You are an Environmentalist (sustainability and environmental health): you push for eco-friendly ideas and weigh their impact on the planet.",
    },
    {
      name: "Creative Professional",
      description: "You are a Creative Professional (aesthetics, narratives and emotions): you make ideas expressive and resonant for people.",
    },
    {
      name: "Futurist",
      description: "You are a Futurist (emerging technologies and future scenarios): you think beyond the present about what ideas could become.",
    },
    {
      name: "Futurist",
      description: "You are a Futurist (emerging technologies and future scenarios): you think beyond the present about what ideas could become.",
    },
  ],
};

/** Sets whose source gives every agent exactly one role (with fewer agents, the last roles go unworn). */
const ONE_ROLE_EACH: ReadonlySet<string> = new Set(["llm-discussion"]);

/**
 * Roles for `agents` agents of set `name`, by position: agent i wears roles i, i + agents,
 * i + 2 x agents... so every role of the set is worn by someone (six hats with four agents: the
 * first two agents also wear the Green and Blue hats), except in sets whose source gives each
 * agent one role; with more agents than roles the roles repeat.
 */
export function assignRoles(agents: number, name: keyof typeof roleSets): RoleSpec[][] {
  const set = roleSets[name];
  const assigned: RoleSpec[][] = Array.from({ length: agents }, (_, i) => [set[i % set.length]]);
  if (!ONE_ROLE_EACH.has(name)) for (let r = agents; r < set.length; r++) assigned[r % agents].push(set[r]);
  return assigned;
}
