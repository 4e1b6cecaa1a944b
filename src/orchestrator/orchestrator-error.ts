/** A session cannot go on (a model call failed for good after the LLM layer's retries, or a resumed session no longer follows its journal): the run saves it as incomplete. */
export class OrchestratorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OrchestratorError";
  }
}
