import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium, type Browser, type Page } from "playwright-core";

/** Debian's Chromium; never downloaded by playwright. */
export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOTS = "test-output/screenshots";

/** Launch headless Chromium (waits a little if the apt install is still finishing). */
export async function launchBrowser(): Promise<Browser> {
  for (let i = 0; i < 30 && !existsSync(CHROMIUM); i++) await sleep(2000);
  await mkdir(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

/** Collects console errors and uncaught page errors; tests assert it stays empty. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("dialog", (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  return errors;
}

/** Navigate to a view and wait until it has rendered. */
export async function openView(page: Page, base: string, view: string): Promise<void> {
  await page.goto(`${base}#/${view}`);
  await page.waitForSelector(`main[data-view="${view}"][data-ready="true"]`, { timeout: 15_000 });
}
