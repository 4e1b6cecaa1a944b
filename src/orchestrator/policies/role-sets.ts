/**
 * Role sets shipped with Colloquy for the round-based strategy (written by us): a set of
 * diverse professional perspectives, and de Bono's six thinking hats.
 */
export interface RoleSpec {
  name: string;
  description: string;
}

export const roleSets: Record<"professions" | "six-hats", RoleSpec[]> = {
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
};
