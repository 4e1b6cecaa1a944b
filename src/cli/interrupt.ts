/** Resolves on Ctrl-C / SIGTERM: a serving command (serve, annotate) keeps serving until then. */
export function untilInterrupted(): Promise<void> {
  return new Promise((ok) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      ok();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
