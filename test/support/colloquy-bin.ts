// Runs the CLI from source (for tests that need a real process: standard input, signals).
import { main } from "../../src/cli/main.js";

process.exitCode = await main(process.argv);
