import { existsSync } from "node:fs";
import { crc32 } from "node:zlib";
import { CliError } from "../../util/errors.js";

/**
 * The report's figures as PNG for journals that want raster images: each SVG drawn by Chromium
 * (the same renderer as the dashboard's tests) at the scale that makes it 300 dpi when printed
 * one column wide (85 mm), with the resolution written into the file (pHYs) so a word processor
 * places it at that size.
 */
export const COLUMN_MM = 85;
export const DPI = 300;
/** Pixels across a figure one column wide at 300 dpi: 85 mm / 25.4 mm per inch x 300 = 1004. */
export const COLUMN_PIXELS = Math.round((COLUMN_MM / 25.4) * DPI);

/** Debian's Chromium unless COLLOQUY_CHROMIUM names another. */
export function chromiumPath(): string {
  return process.env.COLLOQUY_CHROMIUM || "/usr/bin/chromium";
}

const missing = (why: string) =>
  new CliError(
    `PNG figures need Chromium (${why}). Install it (Debian/Ubuntu: apt-get install chromium) or set COLLOQUY_CHROMIUM to its executable; without --png the report links its SVG figures, which need nothing.`,
  );

/** The PNG with a pHYs chunk after its header: `dpi` in pixels per metre, both axes. */
export function withResolution(png: Buffer, dpi = DPI): Buffer {
  const perMetre = Math.round(dpi / 0.0254);
  const data = Buffer.alloc(9);
  data.writeUInt32BE(perMetre, 0);
  data.writeUInt32BE(perMetre, 4);
  data.writeUInt8(1, 8); // unit: metre
  const type = Buffer.from("pHYs", "latin1");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([type, data])));
  // Signature (8 bytes) + IHDR (length 4, type 4, data 13, CRC 4) = 33 bytes; pHYs must come before IDAT.
  return Buffer.concat([png.subarray(0, 33), length, type, data, crc, png.subarray(33)]);
}

/** Each SVG (a standalone <svg> string with a viewBox) as a PNG COLUMN_PIXELS wide. */
export async function svgsToPng(svgs: readonly string[]): Promise<Buffer[]> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) throw missing(`none at ${executablePath}`);
  let chromium: typeof import("playwright-core").chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch {
    throw missing("the playwright-core package that drives it is not installed");
  }
  let browser: import("playwright-core").Browser;
  try {
    browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  } catch (error) {
    throw missing(`${executablePath} did not start: ${(error as Error).message.split("\n")[0]}`);
  }
  try {
    const out: Buffer[] = [];
    // Each figure drawn COLUMN_PIXELS CSS pixels across at scale 1 (its viewBox scales it), so
    // no fractional device pixel is rounded at an edge. No scripts either: a figure is drawn
    // SVG, and its labels are a study's text (escaped, but a second guard costs nothing).
    const page = await browser.newPage({ viewport: { width: COLUMN_PIXELS, height: 600 }, javaScriptEnabled: false });
    try {
      // No network: the figures are self-contained, and nothing in them should load anything.
      await page.route("**/*", (route) => route.abort());
      for (const svg of svgs) {
        await page.setContent(
          `<!doctype html><html><head><style>svg{display:block;width:${COLUMN_PIXELS}px;height:auto}</style></head><body style="margin:0;background:#fff">${svg}</body></html>`,
        );
        const box = (await page.locator("svg").first().boundingBox())!;
        out.push(
          withResolution(await page.screenshot({ type: "png", fullPage: true, clip: { x: 0, y: 0, width: COLUMN_PIXELS, height: Math.ceil(box.height) } })),
        );
      }
    } finally {
      await page.close();
    }
    return out;
  } finally {
    await browser.close();
  }
}
