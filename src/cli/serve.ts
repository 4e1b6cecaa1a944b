import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { CliError } from "../util/errors.js";
import { io } from "./io.js";
import { writing } from "./lock.js";
import { untilInterrupted } from "./interrupt.js";

/** Open a URL in the desktop browser (best effort: no browser is not an error). */
function openBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    spawn(command, [url], { stdio: "ignore", detached: true })
      .on("error", () => io().err(`could not open a browser; visit ${url}`))
      .unref();
  } catch {
    io().err(`could not open a browser; visit ${url}`);
  }
}

/**
 * Rebuild a stale site holding the study's writer lock. Serving reads only, so when another
 * command is writing the study, serve the site as last built rather than wait for it.
 */
async function rebuildUnlessBusy(study: string, site: string): Promise<void> {
  const { buildSite } = await import("../report/build.js");
  const { StudyLockedError } = await import("../study/lock.js");
  try {
    await writing(
      study,
      "serve",
      async () => {
        io().out("Building the dashboard…");
        await buildSite(study, { out: site, reporter: io().reporter() });
      },
      { waitMs: 0 },
    );
  } catch (error) {
    if (!(error instanceof StudyLockedError) || !existsSync(resolve(site, "index.html"))) throw error;
    io().err(`warning: not rebuilding the dashboard: ${error.busy}; serving the site as last built`);
  }
}

/** `colloquy serve <study>`: build when needed, then serve the site on 127.0.0.1 until Ctrl-C. */
export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("serve the dashboard locally (builds it first when the study changed)")
    .addArgument(studyArgument())
    .option("--port <port>", "first port to try (the next ones are tried when taken)", "5173")
    .option("--host <host>", "interface to bind", "127.0.0.1")
    .option("--open", "open the dashboard in the browser")
    .option("--no-build", "serve the existing site as is")
    .option("--out <dir>", "site folder (default <study>/site)")
    .action(serveDashboard);
}

export interface ServeFlags {
  port: string;
  host: string;
  open?: boolean;
  /** Build first when the study changed since the site was built (false: serve the site as is). */
  build: boolean;
  out?: string;
}

/** Serve a study's dashboard on the given interface until Ctrl-C (`colloquy serve`, `study --serve`). */
export async function serveDashboard(study: string, options: ServeFlags): Promise<void> {
  const { studyPaths } = await import("../study/study.js");
  const { siteIsStale } = await import("../report/build.js");
  const { startServer } = await import("../report/server.js");
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port ${options.port}: not a port number (0-65535)`);
  const paths = studyPaths(study);
  // Before anything is printed: "Building the dashboard…" for a folder that is not there misleads.
  if (!existsSync(paths.root)) throw new CliError(`${paths.root}: no such study folder. Create one with \`colloquy init ${study}\`, or check the path.`);
  const site = resolve(options.out ?? paths.site);
  if (options.build && (await siteIsStale(study, site))) {
    await rebuildUnlessBusy(study, site);
  } else if (!options.build && !existsSync(resolve(site, "index.html"))) {
    throw new CliError(`${site}/index.html is missing: run \`colloquy build ${study}\` first, or drop --no-build`);
  }
  let server;
  try {
    server = await startServer(site, { host: options.host, port });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  if (options.host !== "127.0.0.1" && options.host !== "localhost" && options.host !== "::1") {
    io().err(`warning: serving on ${options.host}: other machines on the network can read this study`);
  }
  io().out(`Dashboard: ${server.url}  (Ctrl-C to stop)`);
  if (options.open) openBrowser(server.url);
  await untilInterrupted();
  await server.close();
}
