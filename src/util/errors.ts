/**
 * The one error type thrown toward the CLI edge. Everything below the CLI either returns
 * errors as values or throws a CliError whose message already tells the user how to fix it.
 */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CliError";
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Message of any thrown value, for reports. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
