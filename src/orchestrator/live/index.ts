import { resolveAgents } from "../agent.js";
import type { Scenario } from "../scenario.js";
import { LiveHub } from "./hub.js";
import type { JournalLinks } from "../journal.js";
import { startLiveServer, type LiveServer } from "./server.js";

export { LiveHub } from "./hub.js";

/**
 * Serve a scenario's live pages: one chat page per human participant and the operator's,
 * each behind its own token. The hub is both the run's human input and its observer.
 */
export async function serveLive(
  scenario: Scenario,
  options: { host?: string; port?: number; links?: JournalLinks } = {},
): Promise<{ hub: LiveHub; server: LiveServer; people: { name: string; link: string }[] }> {
  const humans = resolveAgents(scenario).filter((p) => p.kind === "human");
  const hub = new LiveHub(humans, options.links, scenario.studyFlow);
  const server = await startLiveServer(hub, { host: options.host, port: options.port || options.links?.port });
  return { hub, server, people: humans.map((p) => ({ name: p.name, link: server.links.participants.get(p.id)! })) };
}
