/**
 * A PNG of a rendered page, taken once its actions and waits are done (what the content was read
 * from). `viewport` is the browser's window (1280 x 900); `fullPage` the whole page, cut at
 * FULL_PAGE_MAX_HEIGHT pixels, so a page of endless height cannot make an endless image. Images and
 * fonts are never fetched for a render (routing.ts), so a screenshot shows the page's layout and text
 * in the browser's own fonts, with empty boxes where pictures would be.
 */
import type { Page } from 'playwright-core';

export type ScreenshotKind = 'viewport' | 'fullPage';

/** The tallest full-page screenshot; a taller page is cut there, with a warning. */
export const FULL_PAGE_MAX_HEIGHT = 8_000;
/** The largest PNG kept: a larger one is left out of the reply, with a warning, and not charged. */
export const SCREENSHOT_MAX_BYTES = 5 * 1024 * 1024;

export interface Screenshot {
  png: Buffer;
  width: number;
  height: number;
}

export async function takeScreenshot(
  page: Page,
  kind: ScreenshotKind,
  bound: <T>(work: Promise<T>) => Promise<T>,
  timeout: number,
  warnings: string[],
): Promise<Screenshot | undefined> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 900 };
  let clip: { x: number; y: number; width: number; height: number } | undefined;
  if (kind === 'fullPage') {
    const size = await bound(page.evaluate('({ width: document.documentElement.scrollWidth, height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0) })'));
    const { width, height } = size as { width: number; height: number };
    const cut = height > FULL_PAGE_MAX_HEIGHT;
    if (cut) warnings.push(`The page is ${height} px tall; its full-page screenshot was cut at ${FULL_PAGE_MAX_HEIGHT} px.`);
    clip = { x: 0, y: 0, width: Math.max(1, Math.min(width, viewport.width)), height: Math.max(1, Math.min(height, FULL_PAGE_MAX_HEIGHT)) };
  }
  const png = await bound(page.screenshot({ type: 'png', fullPage: kind === 'fullPage', clip, timeout, animations: 'disabled', caret: 'hide' }));
  if (png.length > SCREENSHOT_MAX_BYTES) {
    warnings.push(`The screenshot (${Math.round(png.length / 1024)} KB) is larger than ${SCREENSHOT_MAX_BYTES / 1024 / 1024} MB and was left out (not charged).`);
    return undefined;
  }
  return { png, width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
