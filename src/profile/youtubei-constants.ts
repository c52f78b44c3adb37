/**
 * youtubei.js's client constants (client names, versions, the supported client keys) without loading
 * youtubei.js itself: the package's entry imports its whole parser (about 670 modules, most of a CLI
 * command's start-up), while its constants are one module that imports nothing. The package exports
 * only its entry, so the module is reached by its file next to the entry; test/unit/youtubei-constants
 * checks that it is the very object the entry exports, so a youtubei.js release that moves it fails there.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Constants as YoutubeiConstants } from 'youtubei.js';

const entry = createRequire(import.meta.url).resolve('youtubei.js');
export const YOUTUBEI_CONSTANTS_FILE = path.join(path.dirname(entry), '..', 'utils', 'Constants.js');

export const Constants: typeof YoutubeiConstants = await import(pathToFileURL(YOUTUBEI_CONSTANTS_FILE).href);
