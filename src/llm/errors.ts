import type * as Sdk from "openai";
import { loadedOpenaiSdk } from "./sdk.js";
import { displayURL } from "./config.js";
import type { LlmErrorKind } from "./types.js";

/**
 * Turn whatever the SDK threw into a kind, a fix-it message and a retry decision.
 * Messages never contain the key: `redact` is applied to everything that leaves this module.
 */
export interface Classified {
  kind: LlmErrorKind;
  message: string;
  status?: number;
  retryable: boolean;
  headers?: Headers;
  /** 400 that says the endpoint does not support the response_format we sent. */
  unsupportedFormat?: boolean;
}

export function classifyError(error: unknown, context: { baseURL?: string; model: string }): Classified {
  const where = displayURL(context.baseURL);
  // Not loaded: no request was made, so the error is not the SDK's (classes that match nothing stand in).
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = loadedOpenaiSdk() ?? noSdk;
  if (error instanceof APIUserAbortError || (error instanceof Error && error.name === "AbortError")) {
    return { kind: "aborted", message: "request aborted", retryable: false };
  }
  if (error instanceof APIConnectionTimeoutError) {
    return { kind: "timeout", message: `${where} did not answer within the request timeout`, retryable: true };
  }
  if (error instanceof APIConnectionError) {
    const cause = (error.cause as NodeJS.ErrnoException | undefined)?.code ?? (error.cause as Error | undefined)?.message ?? error.message;
    return {
      kind: "unreachable",
      message: `cannot reach ${where} (${cause}). Is the server running? For a local model start it (e.g. \`ollama serve\`) and pass --base-url http://localhost:11434/v1`,
      retryable: true,
    };
  }
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    const detail = errorDetail(error);
    const headers = error.headers instanceof Headers ? error.headers : undefined;
    if (status === 401 || status === 403) {
      return {
        kind: "auth",
        status,
        retryable: false,
        message: `${where} rejected the API key (${status}: ${detail}). Check OPENAI_API_KEY (export OPENAI_API_KEY=...), or use a local model with --base-url http://localhost:11434/v1. (Your key is never sent to an endpoint named only by colloquy.json's model.baseURL: pass it as --base-url to use your key there.)`,
      };
    }
    if (status === 429) return { kind: "rate_limit", status, retryable: true, headers, message: `${where} rate limit (429: ${detail})` };
    if (status === 408 || status === 409 || status >= 500) {
      return { kind: status >= 500 ? "server" : "unknown", status, retryable: true, headers, message: `${where} error ${status}: ${detail}` };
    }
    if (status === 404) {
      return {
        kind: "bad_request",
        status,
        retryable: false,
        message: `${where} answered 404 (${detail}). Check the model name ("${context.model}", set with --model) and that the base URL ends in /v1`,
      };
    }
    if (status === 400 || status === 422) {
      const unsupportedFormat = /response_format|json_schema|json_object|structured output/i.test(detail);
      return { kind: "bad_request", status, retryable: false, unsupportedFormat, message: `${where} rejected the request (${status}: ${detail})` };
    }
    return { kind: "unknown", status, retryable: false, message: `${where} error ${status}: ${detail}` };
  }
  // The SDK could not parse the body (a proxy's HTML page, a truncated body): transient.
  if (error instanceof SyntaxError) {
    return { kind: "server", retryable: true, message: `${where} sent a malformed response (${error.message})` };
  }
  return { kind: "unknown", retryable: false, message: error instanceof Error ? error.message : String(error) };
}

function errorDetail(error: Sdk.APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === "string" ? body.message : error.message;
  return message.length > 300 ? message.slice(0, 300) + "…" : message;
}

/** Replace every occurrence of the key (and of its Bearer form) in a message. */
export function redact(text: string, apiKey: string | undefined): string {
  if (!apiKey || apiKey.length < 4) return text;
  return text.split(apiKey).join("[redacted]");
}

/** Stands in for the SDK's error classes before it is loaded: nothing is an instance of it. */
class NotLoaded {}
const noSdk = {
  APIConnectionError: NotLoaded,
  APIConnectionTimeoutError: NotLoaded,
  APIError: NotLoaded,
  APIUserAbortError: NotLoaded,
} as unknown as Pick<typeof Sdk, "APIConnectionError" | "APIConnectionTimeoutError" | "APIError" | "APIUserAbortError">;
