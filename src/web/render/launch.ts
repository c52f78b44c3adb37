/**
 * Starting the rendering browser: a local Chromium launched with flags that work as root in a
 * container, or a remote one over CDP. A local one carries a marker on its command line, so its
 * process can be found (memory-watch.ts) and killed if it hangs.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { GleanerError } from '../../errors.js';
import type { BrowserTarget } from './locate.js';
import { WEBRTC_LAUNCH_ARGS } from './webrtc.js';

export type StartableTarget = Exclude<BrowserTarget, { kind: 'none' }>;

/**
 * Flags for a local Chromium that work as root in a container: no sandbox (root cannot have one),
 * no GPU, no QUIC (UDP is not routed), none of the browser's own background traffic, WebRTC without
 * UDP (webrtc.ts), and each renderer's JavaScript heap capped at `memoryMb` (memory-watch.ts bounds
 * the rest of its memory). Playwright adds --headless and a fresh --user-data-dir.
 */
export function launchArgs(memoryMb: number): string[] {
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    ...WEBRTC_LAUNCH_ARGS,
    // The browser resolves no name itself: routed requests need no DNS, and nothing else should reach out.
    '--host-resolver-rules=MAP * ~NOTFOUND',
    `--js-flags=--max-old-space-size=${memoryMb}`,
  ];
}

/** The browser, launched or connected to, and the marker on a local one's command line. */
export async function startBrowser(target: StartableTarget, memoryMb: number): Promise<{ browser: Browser; marker: string }> {
  // Loaded on first use: a server that never renders does not pay for Playwright at start-up.
  const { chromium } = await import('playwright-core');
  const marker = `--gleaner-browser=${randomUUID()}`;
  const browser =
    target.kind === 'remote'
      ? await chromium.connectOverCDP(target.wsUrl, { timeout: 30_000 })
      : await chromium.launch({
          executablePath: target.executablePath,
          headless: true,
          // The marker (a switch Chromium ignores) finds this browser's process, to kill it if it hangs.
          args: [...launchArgs(memoryMb), marker],
          chromiumSandbox: false,
          // The app closes the browser on shutdown (app.close); Playwright must not race it.
          handleSIGINT: false,
          handleSIGTERM: false,
          handleSIGHUP: false,
          timeout: 30_000,
        });
  return { browser, marker };
}

/** Why the browser could not be started, naming the setting (a remote address is never shown: it may carry a token). */
export function launchFailure(target: StartableTarget, error: unknown): GleanerError {
  const first = String((error as Error).message ?? error).split('\n')[0];
  return target.kind === 'remote'
    ? new GleanerError('UPSTREAM_UNAVAILABLE', `The remote browser (GLEANER_BROWSER_WS_URL) could not be reached: ${first.replace(/\b(?:wss?|https?):\/\/\S+/gi, '<GLEANER_BROWSER_WS_URL>')}`)
    : new GleanerError('NOT_CONFIGURED', `The browser at GLEANER_BROWSER_PATH (${target.executablePath}) could not be started: ${first}`);
}

/** Playwright's words for a page, context or browser that closed while a call used it. */
export function closedUnderUs(error: unknown): boolean {
  return /has been closed|Target closed|browser has disconnected/i.test(String((error as Error)?.message ?? ''));
}
