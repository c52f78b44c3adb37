/**
 * Which browser renders pages: a remote one over CDP (GLEANER_BROWSER_WS_URL, a browser fleet),
 * else a local Chromium (GLEANER_BROWSER_PATH, else the first of the usual names on the PATH), else
 * none, with the reason in words an operator can act on. The WebSocket URL may carry a token, so
 * it never appears in a reason or a log line: only the variable's name does.
 */
import fs from 'node:fs';
import path from 'node:path';

export type BrowserTarget = { kind: 'remote'; wsUrl: string } | { kind: 'local'; executablePath: string } | { kind: 'none'; reason: string };

/** Debian's `chromium`, Ubuntu's older `chromium-browser`, Google's packages. */
const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

function executable(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    if (executable(file)) return file;
  }
  return undefined;
}

export function locateBrowser(settings: { browserPath?: string; wsUrl?: string }, pathVar = process.env.PATH ?? ''): BrowserTarget {
  if (settings.wsUrl) return { kind: 'remote', wsUrl: settings.wsUrl };
  if (settings.browserPath) {
    const file = settings.browserPath.includes(path.sep) ? settings.browserPath : onPath(settings.browserPath, pathVar);
    if (file && executable(file)) return { kind: 'local', executablePath: file };
    return { kind: 'none', reason: `GLEANER_BROWSER_PATH is ${settings.browserPath}, which is not an executable file` };
  }
  for (const name of PATH_NAMES) {
    const file = onPath(name, pathVar);
    if (file) return { kind: 'local', executablePath: file };
  }
  return {
    kind: 'none',
    reason: `no browser is configured and none of ${PATH_NAMES.join(', ')} is on the PATH; set GLEANER_BROWSER_PATH to a Chromium or GLEANER_BROWSER_WS_URL to a remote browser (CDP)`,
  };
}
