/**
 * Debian's Chromium driven by playwright-core, for the console's tests: headless, no sandbox (CI runs
 * as root in a container), no GPU, no background traffic (nothing beyond loopback in tests).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.GLEANER_BROWSER_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Screenshots of each page the test walks, kept as artifacts in test/artifacts/console (gitignored). */
export const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts/console');

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Signs in to the console at `baseUrl` with `key` in a new page of `context`; resolves on the overview. */
export async function signInToConsole(context: BrowserContext, baseUrl: string, key: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${baseUrl}/console`);
  await page.fill('input[name=key]', key);
  await page.click('button[type=submit]');
  await page.waitForURL(`${baseUrl}/console`);
  return page;
}
