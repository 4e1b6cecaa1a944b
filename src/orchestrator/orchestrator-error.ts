/** An LLM call failed for good (after the LLM layer's retries); the run is saved as incomplete. */
export class OrchestratorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OrchestratorError";
  }
}
