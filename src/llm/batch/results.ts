/**
 * Reading a batch's output and error files (JSONL). Each line names its request by custom_id
 * (our response-cache key) and carries either the chat-completion body the online call would
 * have returned, or an error. Lines we cannot read are reported, never guessed at.
 */

export type BatchAnswer =
  { ok: true; text: string; model: string; usage: { promptTokens: number; completionTokens: number }; finishReason?: string } | { ok: false; message: string };

/** What we read of a chat.completion (or error) body. */
interface ReplyBody {
  model?: unknown;
  choices?: { message?: { content?: unknown }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string };
}

interface OutputLine {
  custom_id?: unknown;
  response?: { status_code?: number; body?: ReplyBody } | null;
  error?: { code?: string; message?: string } | null;
}

/**
 * The answers of an output or error file, one line at a time as they arrive (the file is never
 * one string, and nothing is kept here: the caller stores each answer as it comes). Lines that
 * cannot be read are pushed to `problems`, each naming the file and line.
 */
export async function* batchResults(
  lines: AsyncIterable<string> | Iterable<string>,
  fileLabel: string,
  problems: string[],
): AsyncGenerator<[key: string, answer: BatchAnswer]> {
  let lineNo = 0;
  for await (const raw of lines) {
    lineNo++;
    if (raw.trim() === "") continue;
    let line: OutputLine;
    try {
      line = JSON.parse(raw) as OutputLine;
    } catch {
      problems.push(`${fileLabel} line ${lineNo}: not JSON`);
      continue;
    }
    if (typeof line.custom_id !== "string") {
      problems.push(`${fileLabel} line ${lineNo}: no custom_id`);
      continue;
    }
    yield [line.custom_id, answerOf(line)];
  }
}

function answerOf(line: OutputLine): BatchAnswer {
  const status = line.response?.status_code;
  const body = line.response?.body;
  if (line.error) return { ok: false, message: `${line.error.code ?? "error"}: ${line.error.message ?? "no message"}` };
  if (status !== 200) return { ok: false, message: `status ${status ?? "missing"}: ${body?.error?.message ?? "no message"}` };
  const choice = body?.choices?.[0];
  if (!choice || typeof choice.message?.content !== "string") return { ok: false, message: "the reply has no choices[0].message.content" };
  return {
    ok: true,
    text: choice.message.content,
    model: typeof body?.model === "string" ? body.model : "unknown",
    usage: { promptTokens: body?.usage?.prompt_tokens ?? 0, completionTokens: body?.usage?.completion_tokens ?? 0 },
    finishReason: choice.finish_reason ?? undefined,
  };
}
