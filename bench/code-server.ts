/**
 * Worker thread for bench/code.ts: runs the test OpenAI-compatible server on its own thread,
 * so the simulated endpoint does not compete with the client for the same event loop (in real
 * use the endpoint is another machine). Answers every coding request with a valid code.
 * Messages: in {type: "count"} -> out {count}; in {type: "close"} -> closes and exits.
 */
import { parentPort, workerData } from "node:worker_threads";
import { startOpenAiServer, type RecordedRequest } from "../test/support/openai-server.js";

/** Answers like a model would: a valid code per TARGET line (single or batched format). */
export function benchReply(request: RecordedRequest) {
  const user: string = request.body.messages[1].content;
  const targets: Array<{ turn: string; text: string }> = [];
  for (const line of user.split("\n")) {
    if (!line.startsWith("TARGET [")) continue;
    const close = line.indexOf("]");
    targets.push({ turn: line.slice(8, close), text: line.slice(close + 2) });
  }
  const code = (text: string) => (text.includes("?") ? "asks-opinion" : /thank/i.test(text) ? "shows-solidarity" : "gives-opinion");
  if (request.body.response_format?.json_schema?.name === "turn_codes") {
    return { content: JSON.stringify({ items: targets.map((t) => ({ turn: t.turn, code: code(t.text), rationale: "bench" })) }) };
  }
  return { content: JSON.stringify({ code: code(targets[0].text), rationale: "bench" }) };
}

if (parentPort) {
  const port = parentPort;
  const server = await startOpenAiServer({ latencyMs: (workerData as { latencyMs: number }).latencyMs, handler: benchReply, record: false });
  port.on("message", async (message: { type: string }) => {
    if (message.type === "count") port.postMessage({ count: server.chatCount });
    if (message.type === "close") {
      await server.close();
      port.close();
    }
  });
  port.postMessage({ url: server.url });
}
