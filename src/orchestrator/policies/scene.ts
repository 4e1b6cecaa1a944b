import { defineStrategy } from "../strategy.js";
import type { Agent } from "../agent.js";
import type { Conversation } from "../conversation.js";
import type { Turn } from "../../transcript/schema.js";
import { sceneParamsSchema, type Party, type SceneParams, type Snippet } from "./scene-schema.js";
import { readHumanInput, unknownNames } from "./shared.js";

/**
 * Scripted and generated snippets chained in a graph (conference scenes, classrooms, panels):
 * parties with speaking modes, free / round-robin / moderated party order (members raise
 * hands; the moderator acknowledges the last speaker and invites one raised hand by name;
 * system events record both), interaction patterns per snippet, interruptions per pair,
 * backchannels, fixed lines for scripted participants, and derailers who open impromptu
 * phases (drift, extend, probe, emotional) that can be held for a human's approval or edit.
 */
export const scene = defineStrategy({
  type: "scene",
  description: "scripted/generated snippets in a graph with parties, moderation, interruptions, backchannels and derailers",
  params: sceneParamsSchema,
  check: sceneProblems,
  controls: () => ["/hand"],
  async run(conversation, params) {
    await new ScenePlayer(conversation, params).play();
  },
});

/** Every name and reference in the scene parameters must resolve (checked before any run). */
export function sceneProblems(params: SceneParams, find: (name: string) => Agent | undefined): string[] {
  const problems = unknownNames(
    [
      ...params.parties.flatMap((p, i) => [
        ...p.members.map((m, j) => [`parties[${i}].members[${j}]`, m] as [string, string]),
        [`parties[${i}].representative`, p.representative] as [string, string | undefined],
      ]),
      ["moderator", params.moderator],
      ...params.interruptions.flatMap(
        (r, i) =>
          [
            [`interruptions[${i}].from`, r.from],
            [`interruptions[${i}].to`, r.to],
          ] as [string, string][],
      ),
      ...params.derailers.flatMap(
        (d, i) =>
          [
            [`derailers[${i}].participant`, d.participant],
            [`derailers[${i}].approver`, d.approver],
          ] as [string, string | undefined][],
      ),
      ...params.snippets.flatMap((s, i) => (s.script ?? []).map((line, j) => [`snippets[${i}].script[${j}].speaker`, line.speaker] as [string, string])),
    ],
    find,
  );
  const moderated = params.partyOrder === "moderated" || params.snippets.some((s) => s.partyOrder === "moderated");
  if (moderated && !params.moderator) problems.push('strategy.moderator is required when a party order is "moderated"');
  const ids = new Set(params.snippets.map((s) => s.id));
  const parties = new Set(params.parties.map((p) => p.name.toLowerCase()));
  params.snippets.forEach((s, i) => {
    for (const n of s.next) if (!ids.has(n)) problems.push(`strategy.snippets[${i}].next names unknown snippet "${n}"`);
    for (const p of s.parties ?? []) if (!parties.has(p.toLowerCase())) problems.push(`strategy.snippets[${i}].parties names unknown party "${p}"`);
    if (!parties.has(s.initiator.toLowerCase()) && !find(s.initiator))
      problems.push(`strategy.snippets[${i}].initiator "${s.initiator}" is neither a party nor a participant`);
  });
  if (params.start && !ids.has(params.start)) problems.push(`strategy.start names unknown snippet "${params.start}"`);
  return problems;
}

const patternInstruction = {
  agree: "Agree with the previous speaker and build on what they said.",
  disagree: "Respectfully disagree with the previous speaker and say why.",
  neutral: "Respond naturally to the conversation.",
} as const;

const derailInstruction = {
  drift: "Steer the conversation onto a related but different topic that interests you.",
  extend: "Take the current point much further than planned, with a tangent of your own.",
  probe: "Ask a probing, challenging question about what was just said.",
  emotional: "React emotionally (excited, frustrated or moved) to what was just said.",
} as const;

class ScenePlayer {
  private readonly parties: { spec: Party; members: Agent[] }[];
  private readonly moderator: Agent | undefined;
  private readonly scriptCursor = new Map<string, number>();
  private roundRobin = 0;
  private raised: Agent[] = [];
  private last: Agent | undefined;

  /** Names were checked by sceneProblems before the run started. */
  constructor(
    private readonly conversation: Conversation,
    private readonly params: SceneParams,
  ) {
    this.parties = params.parties.map((spec) => ({ spec, members: spec.members.map((m) => conversation.find(m)!) }));
    this.moderator = params.moderator ? conversation.find(params.moderator) : undefined;
  }

  async play(): Promise<void> {
    this.params.derailers.forEach((d, i) => {
      const approver = d.approver ? this.conversation.find(d.approver) : undefined;
      if (d.approval && !approver && !this.conversation.approver) {
        throw new Error(
          `strategy.derailers[${i}].approval is true but nobody can approve: the operator approves derails at the terminal or on the operator page (colloquy run --serve), or name a human participant in strategy.derailers[${i}].approver`,
        );
      }
    });
    let snippet: Snippet | undefined = this.params.snippets.find((s) => s.id === (this.params.start ?? this.params.snippets[0].id));
    while (snippet && !this.conversation.stopReason()) {
      await this.playSnippet(snippet);
      const next: string[] = snippet.next;
      snippet = next.length ? this.params.snippets.find((s) => s.id === this.conversation.random.pick(next)) : undefined;
    }
    this.conversation.end(this.conversation.stopReason() ?? "scene finished");
  }

  private partyNamed(name: string) {
    return this.parties.find((p) => p.spec.name.toLowerCase() === name.toLowerCase());
  }

  private snippetParties(snippet: Snippet) {
    return snippet.parties ? snippet.parties.map((n) => this.partyNamed(n)).filter((p): p is NonNullable<typeof p> => Boolean(p)) : this.parties;
  }

  private async playSnippet(snippet: Snippet): Promise<void> {
    const c = this.conversation;
    c.system(`Scene: ${snippet.id}`, { event: "snippet", snippet: snippet.id, pattern: snippet.pattern });
    if (snippet.script) {
      for (const line of snippet.script) {
        if (c.stopReason()) return;
        const speaker = c.find(line.speaker)!;
        this.last = speaker;
        // Scripted lines are spoken turns like any other: interruption rules apply to them too.
        await this.maybeInterrupt(
          c.say(speaker.id, line.text, { metadata: { decision: { strategy: "scene", snippet: snippet.id, scripted: true } } }),
          snippet,
        );
      }
      return;
    }
    const initiatorParty = this.partyNamed(snippet.initiator);
    let queue: Agent[] = initiatorParty ? this.partySpeakers(initiatorParty.spec, initiatorParty.members) : [c.find(snippet.initiator)!];
    for (let spoken = 0; spoken < snippet.turns && !c.stopReason(); spoken++) {
      if (queue.length === 0) queue = await this.nextSpeakers(snippet);
      const speaker = queue.shift()!;
      await this.turn(speaker, snippet, spoken === 0 ? "opening" : "turn");
      await this.afterTurn(snippet);
    }
  }

  /** Members who speak for a party under its speaking mode. */
  private partySpeakers(spec: Party, members: Agent[]): Agent[] {
    const random = this.conversation.random;
    switch (spec.speakingMode) {
      case "all":
        return [...members];
      case "representative":
        return [this.conversation.find(spec.representative ?? members[0].name)!];
      case "subset": {
        const chosen = new Set(
          random
            .shuffle(members)
            .slice(0, Math.min(spec.subsetSize, members.length))
            .map((m) => m.id),
        );
        return members.filter((m) => chosen.has(m.id));
      }
      case "random":
        return [random.pick(members)];
    }
  }

  private async nextSpeakers(snippet: Snippet): Promise<Agent[]> {
    const c = this.conversation;
    const parties = this.snippetParties(snippet);
    if (parties.length === 0) {
      const pool = c.participants.filter((p) => p.id !== this.last?.id && p.id !== this.moderator?.id);
      return [c.random.pick(pool)];
    }
    const order = snippet.partyOrder ?? this.params.partyOrder;
    if (order === "round-robin") {
      const party = parties[this.roundRobin++ % parties.length];
      return this.partySpeakers(party.spec, party.members);
    }
    if (order === "free") {
      const others = parties.filter((p) => !p.members.some((m) => m.id === this.last?.id));
      const party = c.random.pick(others.length ? others : parties);
      return this.partySpeakers(party.spec, party.members);
    }
    return [
      await this.moderate(
        parties.flatMap((p) => p.members),
        snippet,
      ),
    ];
  }

  /** Moderated order: hands go up (first come, first served); the moderator invites the first by name. */
  private async moderate(eligible: Agent[], snippet: Snippet): Promise<Agent> {
    const c = this.conversation;
    const candidates = eligible.filter((a) => a.id !== this.last?.id && a.id !== this.moderator!.id && !this.raised.some((r) => r.id === a.id));
    for (const member of candidates) {
      // A person raises their own hand (the page's button, or "/hand"); nobody does it for them.
      if (member.kind !== "human" && c.random.chance(this.params.handRaiseProbability)) this.raise(member);
    }
    if (this.raised.length === 0) {
      const machines = (candidates.length ? candidates : eligible).filter((m) => m.kind !== "human");
      this.raise(c.random.pick(machines.length ? machines : candidates.length ? candidates : eligible));
    }
    const invited = this.raised.shift()!;
    const moderator = this.moderator!;
    // The moderator thanks the last speaker, never itself (it spoke last when it opened the
    // snippet or when the invited person passed).
    const acknowledged = this.last && this.last.id !== moderator.id ? this.last : undefined;
    const instruction = `As the moderator, ${acknowledged ? `thank ${acknowledged.name} for their contribution, then ` : ""}invite ${invited.name} to speak, by name. One or two sentences.`;
    const decision = {
      strategy: "scene",
      method: "moderation",
      acknowledged: acknowledged?.name,
      invited: invited.name,
      queue: this.raised.map((r) => r.name),
    };
    let turn: Turn | undefined;
    if (moderator.kind === "human") {
      // A person moderates in their own words; the invitation stands either way (system event below).
      const text = await c.askHuman(moderator, instruction.replace("As the moderator, ", "You moderate: "), { timeoutSeconds: c.dutyTimeout });
      if (text !== null) turn = c.say(moderator.id, text, { metadata: { decision } });
    } else {
      const { text, metadata } = await c.reply(moderator, { instruction, purpose: "moderate" });
      turn = c.say(moderator.id, text, { metadata: { ...metadata, decision } });
    }
    this.last = moderator;
    // Moderation is a spoken turn like any other: it can be interrupted (a person's words are not cut).
    if (turn) await this.maybeInterrupt(turn, snippet);
    c.system(`${moderator.name} invites ${invited.name}`, { event: "invite", participant: invited.id });
    return invited;
  }

  private raise(member: Agent): void {
    this.raised.push(member);
    this.conversation.system(`${member.name} raises a hand`, { event: "hand-raise", participant: member.id, position: this.raised.length });
  }

  private async turn(speaker: Agent, snippet: Snippet, kind: "opening" | "turn" | "reaction", extra = ""): Promise<Turn | undefined> {
    const c = this.conversation;
    const decision = { strategy: "scene", snippet: snippet.id, pattern: snippet.pattern, kind };
    const cursor = this.scriptCursor.get(speaker.id) ?? 0;
    let turn: Turn | undefined;
    if (speaker.script && cursor < speaker.script.length) {
      this.scriptCursor.set(speaker.id, cursor + 1);
      turn = c.say(speaker.id, speaker.script[cursor], { metadata: { decision: { ...decision, scripted: true, line: cursor } } });
    } else if (speaker.kind === "human") {
      const text = await c.askHuman(speaker, `Your turn in "${snippet.id}" (Enter to pass).`);
      if (text !== null) turn = c.say(speaker.id, text, { metadata: { decision } });
    } else {
      const instruction = [
        snippet.prompt && `Scene: ${snippet.prompt}`,
        kind === "opening" ? "Open this part of the conversation." : kind === "reaction" ? extra : patternInstruction[snippet.pattern],
        `It is your turn to speak as ${speaker.name}, in at most ${speaker.wordLimit ?? this.params.wordLimit} words.`,
      ]
        .filter(Boolean)
        .join("\n");
      const { text, metadata } = await c.reply(speaker, { instruction, purpose: "scene" });
      turn = c.say(speaker.id, text, { metadata: { ...metadata, decision } });
    }
    if (turn) {
      this.last = speaker;
      await this.maybeInterrupt(turn, snippet);
    }
    return turn;
  }

  /**
   * Per-pair interruptions: the interrupter cuts in part-way through the turn, whatever produced
   * it (generated, scripted, moderation, impromptu). The turn ends where it was cut; generated
   * and scripted text is cut there too (the whole text stays in `metadata.uncutText`), while a
   * person's typed words are never cut (their turn still ends there). A human interrupter is
   * offered the moment and decides.
   */
  private async maybeInterrupt(turn: Turn, snippet: Snippet): Promise<void> {
    const c = this.conversation;
    if (turn.type !== "message") return;
    const speaker = c.get(turn.speaker);
    for (const rule of this.params.interruptions) {
      const from = c.find(rule.from)!;
      if (c.find(rule.to)!.id !== turn.speaker || from.id === turn.speaker) continue;
      if (!c.random.chance(rule.probability)) continue;
      const fraction = 0.3 + c.random.next() * 0.5;
      const cut = speaker.kind === "human" ? turn.text : cutText(turn.text, fraction);
      const decision = { strategy: "scene", snippet: snippet.id, interrupts: turn.id, tone: rule.tone };
      let said: { text: string; metadata: Record<string, unknown>; addressee?: Agent } | undefined;
      if (from.kind === "human") {
        // A chance to speak, not a duty: on the page, what the person posted meanwhile cuts in
        // (nobody is held up waiting); at the terminal they are asked.
        const answer = await c.askHuman(from, `${speaker.name} is saying: "${cut}…"\nType to interrupt them now, or press Enter to let them finish.`, {
          optional: true,
        });
        if (answer !== null && /^\/hand\s*$/i.test(answer.trim())) {
          if (!this.raised.some((r) => r.id === from.id)) this.raise(from);
        } else if (answer !== null) said = { text: answer, metadata: {}, addressee: readHumanInput(c, answer).addressee };
      } else {
        said = await c.reply(from, { instruction: `Interrupt ${speaker.name} mid-sentence (tone: ${rule.tone}). Keep it short.`, purpose: "interrupt" });
      }
      if (!said) continue;
      const at = turn.start! + (turn.end! - turn.start!) * fraction;
      turn.end = Math.round(at * 1000) / 1000;
      if (cut !== turn.text) {
        turn.metadata = { ...turn.metadata, uncutText: turn.text };
        turn.text = cut;
      }
      turn.metadata = { ...turn.metadata, interruptedBy: from.id, interruptedAt: fraction };
      c.amend(turn);
      c.clock = turn.end;
      // A person who names someone (@Name) speaks to them; otherwise to whoever they cut off.
      c.say(from.id, said.text, { type: "interruption", addressees: [said.addressee?.id ?? turn.speaker], metadata: { ...said.metadata, decision } });
      this.last = from;
      return;
    }
  }

  /** What people posted since the last turn: "/hand" raises their hand, anything else is said. */
  private takePosted(snippet: Snippet): void {
    const c = this.conversation;
    for (const { agent, text } of c.takeHumanMessages()) {
      if (/^\/hand\s*$/i.test(text.trim())) {
        if (!this.raised.some((r) => r.id === agent.id)) this.raise(agent);
        continue;
      }
      const addressee = readHumanInput(c, text).addressee;
      c.say(agent.id, text, {
        addressees: addressee ? [addressee.id] : undefined,
        metadata: { decision: { strategy: "scene", snippet: snippet.id, method: "posted" } },
      });
      this.last = agent;
    }
  }

  private async afterTurn(snippet: Snippet): Promise<void> {
    const c = this.conversation;
    this.takePosted(snippet);
    const speaker = this.last;
    const at = c.clock;
    for (const p of c.machines) {
      if (p.id === speaker?.id || p.id === this.moderator?.id) continue;
      if (c.random.chance(this.params.backchannel.probability)) {
        c.say(p.id, c.random.pick(this.params.backchannel.texts), {
          type: "backchannel",
          at,
          duration: 0.5,
          metadata: { decision: { strategy: "scene", snippet: snippet.id } },
        });
      }
    }
    for (const derailer of this.params.derailers) {
      const agent = c.find(derailer.participant)!;
      if (agent.id === speaker?.id || c.stopReason()) continue;
      if (c.random.chance(derailer.probability)) {
        await this.impromptu(agent, derailer, snippet);
        return;
      }
    }
  }

  /** An impromptu phase: the derailing turn plus `length - 1` reactions, then back to the scene. */
  private async impromptu(agent: Agent, derailer: SceneParams["derailers"][number], snippet: Snippet): Promise<void> {
    const c = this.conversation;
    const kind = c.random.pick(derailer.kinds);
    const phase = { strategy: "scene", snippet: snippet.id, phase: "impromptu", derail: kind, derailer: agent.name, length: derailer.length };
    if (agent.kind === "human") {
      // A human derailer derails in their own words, or lets the moment pass.
      const own = await c.askHuman(agent, `You may derail now (${kind}): ${derailInstruction[kind]} Type it, or Enter to let it pass.`, {
        timeoutSeconds: c.dutyTimeout,
      });
      if (own === null) return;
      c.system(`Impromptu phase (${kind}) opened by ${agent.name}`, { event: "impromptu", derail: kind });
      const opening = c.say(agent.id, own, { metadata: { decision: { ...phase, step: 1 } } });
      return this.reactions(derailer, phase, agent, opening, snippet);
    }
    const { text: proposed, metadata } = await c.reply(agent, {
      instruction: `${derailInstruction[kind]} Speak as ${agent.name}, in at most ${agent.wordLimit ?? this.params.wordLimit} words.`,
      purpose: `derail-${kind}`,
    });
    let text = proposed;
    const approval: Record<string, unknown> = {};
    if (derailer.approval) {
      const verdict = await this.approve(derailer, agent, kind, proposed);
      if (verdict.decision !== "approve" && verdict.decision !== "edit") {
        const event = verdict.decision === "dismiss" ? "derail-rejected" : "derail-no-answer";
        const by = c.find(verdict.by)?.name ?? "the operator";
        c.system(
          verdict.decision === "dismiss" ? `${by} rejected a derail by ${agent.name}` : `No answer from ${by} on a derail by ${agent.name}; it was not said`,
          { event, proposed, derail: kind, approver: verdict.by },
        );
        return;
      }
      if (verdict.decision === "edit") {
        Object.assign(approval, { editedBy: verdict.by, original: proposed });
        text = verdict.text;
      } else approval.approvedBy = verdict.by;
    }
    c.system(`Impromptu phase (${kind}) opened by ${agent.name}`, { event: "impromptu", derail: kind });
    const opening = c.say(agent.id, text, { metadata: { ...metadata, ...approval, decision: { ...phase, step: 1 } } });
    await this.reactions(derailer, phase, agent, opening, snippet);
  }

  /**
   * The approver's verdict on a held derail: a named human participant (asked like any duty),
   * or the operator (page or terminal). No answer in time means the derail is not said.
   */
  private async approve(
    derailer: SceneParams["derailers"][number],
    agent: Agent,
    kind: string,
    proposed: string,
  ): Promise<{ decision: "approve" | "dismiss" | "no answer"; by: string } | { decision: "edit"; text: string; by: string }> {
    const c = this.conversation;
    const person = derailer.approver ? c.find(derailer.approver) : undefined;
    if (person) {
      const answer = await c.askHuman(
        person,
        `${agent.name} wants to derail (${kind}):\n  ${proposed}\nEnter or /approve to approve, /reject to dismiss it, or type an edited version.`,
        { timeoutSeconds: c.dutyTimeout, controls: ["/approve", "/reject"] },
      );
      if (answer === null) return { decision: c.turns.at(-1)?.metadata?.event === "no-answer" ? "no answer" : "approve", by: person.id };
      if (/^\/reject\b/.test(answer.trim())) return { decision: "dismiss", by: person.id };
      if (/^\/approve\s*$/.test(answer.trim())) return { decision: "approve", by: person.id };
      return { decision: "edit", text: answer, by: person.id };
    }
    const verdict = await c.askApproval({ derailer: agent.name, kind, proposed });
    if (!verdict) return { decision: "no answer", by: "operator" };
    return verdict.decision === "edit" ? { ...verdict, by: "operator" } : { decision: verdict.decision, by: "operator" };
  }

  /**
   * The rest of an impromptu phase: the derailing turn can be interrupted like any other, then
   * `length - 1` reactions (each interruptible), then back to the scene.
   */
  private async reactions(
    derailer: SceneParams["derailers"][number],
    phase: Record<string, unknown>,
    agent: Agent,
    opening: Turn,
    snippet: Snippet,
  ): Promise<void> {
    const c = this.conversation;
    this.last = agent;
    await this.maybeInterrupt(opening, snippet);
    for (let step = 2; step <= derailer.length && !c.stopReason(); step++) {
      const pool = c.machines.filter((p) => p.id !== this.last?.id && p.id !== this.moderator?.id);
      const responder = c.random.pick(pool.length ? pool : c.machines);
      const { text: reaction, metadata: m } = await c.reply(responder, {
        instruction: `React to ${this.last!.name}'s last message. Speak as ${responder.name}, in at most ${responder.wordLimit ?? this.params.wordLimit} words.`,
        purpose: "impromptu",
      });
      const turn = c.say(responder.id, reaction, { metadata: { ...m, decision: { ...phase, step } } });
      this.last = responder;
      await this.maybeInterrupt(turn, snippet);
    }
    c.system("Back to the scene", { event: "impromptu-end" });
  }
}

/**
 * The words said before an interruption at `fraction` (0-1) of the turn: at least one word,
 * never all of a turn of two or more words, marked with a dash where it breaks off.
 */
export function cutText(text: string, fraction: number): string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length < 2) return text;
  const keep = Math.min(words.length - 1, Math.max(1, Math.round(words.length * fraction)));
  return `${words.slice(0, keep).join(" ")}—`;
}
