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
   * Roles named in LLM Discussion (Lu et al., 2024) for its role-play (e.g. Environmentalist,
   * Creative Professional, Futurist, Academic Researcher, Visionary Millionaire). The names are the
   * paper's; the one-line descriptions are ours (the paper's role prompts are longer).
   */
  "llm-discussion": [
    { name: "Environmentalist", description: "You are an Environmentalist: you care about sustainability, ecological footprint and reuse." },
    { name: "Creative Professional", description: "You are a Creative Professional: you look for aesthetic, surprising and artistic possibilities." },
    { name: "Futurist", description: "You are a Futurist: you imagine how ideas play out with emerging technology and future societies." },
    { name: "Academic Researcher", description: "You are an Academic Researcher: you bring rigour, evidence and unexpected findings from many fields." },
    { name: "Visionary Millionaire", description: "You are a Visionary Millionaire: you think big, at scale, and about what could become a venture." },
  ],
};

/**
 * Roles for `agents` agents, by position: agent i wears roles i, i + agents, i + 2 x agents...
 * so every role of the set is worn by someone (six hats with four agents: the first two agents
 * also wear the Green and Blue hats); with more agents than roles the roles repeat.
 */
export function assignRoles(agents: number, set: readonly RoleSpec[]): RoleSpec[][] {
  const assigned: RoleSpec[][] = Array.from({ length: agents }, (_, i) => [set[i % set.length]]);
  for (let r = agents; r < set.length; r++) assigned[r % agents].push(set[r]);
  return assigned;
}
