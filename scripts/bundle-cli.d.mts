/** Types of scripts/bundle-cli.mjs (used by test/cli/bundle.test.ts). */
export function bundleCli(options: { entry: string; outdir: string }): Promise<void>;
