/**
 * src/profile/youtubei-constants.ts reaches youtubei.js's constants module by its file, so that a CLI
 * command need not load the whole library: this pins that the file is still the one the entry exports.
 */
import { describe, expect, it } from 'vitest';
import { Constants as fromEntry } from 'youtubei.js';
import { Constants } from '../../src/profile/youtubei-constants.js';

describe("youtubei.js's constants without the library", () => {
  it('are the constants the package entry exports', () => {
    expect(Constants.SUPPORTED_CLIENTS.length).toBeGreaterThan(5);
    expect(Constants.SUPPORTED_CLIENTS).toEqual(fromEntry.SUPPORTED_CLIENTS);
    expect(Constants.CLIENTS).toEqual(fromEntry.CLIENTS);
  });
});
