/**
 * The platform profile file read as untrusted input (issue 28): own keys only, no control character
 * in a value that becomes a header, every length bounded. Each refusal names the field.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_PROFILE, deepMerge, forbiddenKeyPath, loadPlatformProfile, MAX_PROFILE_FILE_BYTES, ProfileError } from '../../src/profile/load.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-profile-unit-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;
/** A profile file holding `text` exactly (JSON.stringify cannot write a __proto__ key of an object literal). */
const file = (text: string) => {
  const name = path.join(tmp, `profile-${n++}.json`);
  fs.writeFileSync(name, text);
  return name;
};
const refusal = (load: () => unknown): string => {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ProfileError);
    return (error as Error).message;
  }
  throw new Error('the profile was accepted');
};

describe('keys', () => {
  it.each([
    ['{"__proto__": {"polluted": true}}', '__proto__'],
    ['{"browsers": {"desktop": {"__proto__": {"userAgent": "x"}}}}', 'browsers.desktop.__proto__'],
    ['{"youtube": {"clients": {"constructor": {"prototype": {"polluted": true}}}}}', 'youtube.clients.constructor'],
    ['{"tiktok": {"pageHeaders": {"prototype": "x"}}}', 'tiktok.pageHeaders.prototype'],
    ['{"youtube": {"order": {"captions": [{"__proto__": 1}]}}}', 'youtube.order.captions.0.__proto__'],
  ])('%s is refused, the key named', (text, where) => {
    const message = refusal(() => loadPlatformProfile({ file: file(text) }));
    expect(message).toContain(`${where}:`);
    expect(message).toContain('GLEANER_PLATFORM_PROFILE');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('deepMerge keeps a __proto__ key an own property, never the prototype', () => {
    const over = JSON.parse('{"a": {"__proto__": {"polluted": true}}}') as Record<string, unknown>;
    const merged = deepMerge({ a: { b: 1 } }, over) as { a: Record<string, unknown> };
    expect(Object.getPrototypeOf(merged.a)).toBe(Object.prototype);
    expect(merged.a.polluted).toBeUndefined();
    expect(Object.hasOwn(merged.a, '__proto__')).toBe(true);
    expect(forbiddenKeyPath(over)).toBe('a.__proto__');
    expect(forbiddenKeyPath({ a: [{ b: 1 }], c: 'constructor' })).toBeUndefined();
  });

  it('a deeply nested file is walked without overflowing the stack', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(forbiddenKeyPath(JSON.parse(`{"x": {"checked": ${deep}}}`))).toBeUndefined();
  });
});

describe('control characters', () => {
  it.each([
    [{ browsers: { desktop: { userAgent: 'Mozilla/5.0\r\nX-Injected: 1' } } }, 'browsers.desktop.userAgent'],
    [{ browsers: { mobile: { userAgent: 'Mozilla/5.0\n' } } }, 'browsers.mobile.userAgent'],
    [{ browsers: { desktop: { headers: { 'accept-language': 'en\r\nx: y' } } } }, 'browsers.desktop.headers.accept-language'],
    [{ tiktok: { pageHeaders: { 'X-Extra': 'a\u0000b' } } }, 'tiktok.pageHeaders.X-Extra'],
    [{ youtube: { clients: { ANDROID: { clientVersion: '21.26.364\r\n' } } } }, 'youtube.clients.ANDROID.clientVersion'],
    [{ youtube: { clients: { IOS: { userAgent: 'com.google.ios.youtube\t/21' } } } }, 'youtube.clients.IOS.userAgent'],
  ])('%j is refused at load, the field named', (profile, field) => {
    const message = refusal(() => loadPlatformProfile({ file: file(JSON.stringify(profile)) }));
    expect(message).toContain(`${field}: must not contain control characters`);
  });

  it('a header name that is not one is refused', () => {
    expect(refusal(() => loadPlatformProfile({ file: file(JSON.stringify({ tiktok: { mediaHeaders: { 'Bad Name\r\n': 'x' } } })) }))).toContain('tiktok.mediaHeaders.Bad Name\\u000d\\u000a: must be an HTTP header name');
  });
});

describe('lengths', () => {
  it('a 50 MB tweetQueryId is refused: in a file by the file cap, as the shorthand by the field cap', () => {
    const huge = 'A'.repeat(50 * 1024 * 1024);
    const inFile = refusal(() => loadPlatformProfile({ file: file(`{"x":{"tweetQueryId":"${huge}"}}`) }));
    expect(inFile).toContain(`at most ${MAX_PROFILE_FILE_BYTES} bytes`);
    const shorthand = refusal(() => loadPlatformProfile({ xTweetQueryId: huge }));
    expect(shorthand).toContain('x.tweetQueryId: must be at most 128 characters');
    expect(shorthand.length).toBeLessThan(1000);
  });

  it.each([
    [{ x: { tweetQueryId: 'q'.repeat(129) } }, 'x.tweetQueryId: must be at most 128'],
    [{ instagram: { docId: '1'.repeat(129) } }, 'instagram.docId: must be at most 128'],
    [{ browsers: { desktop: { userAgent: 'M'.repeat(1025) } } }, 'browsers.desktop.userAgent: must be at most 1024'],
    [{ tiktok: { checked: { date: '2026-01-01', source: 's'.repeat(501) } } }, 'tiktok.checked.source: must be at most 500'],
    [{ tiktok: { pageHeaders: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`x-h${i}`, 'v'])) } }, 'tiktok.pageHeaders: must hold at most 64 headers'],
    [{ youtube: { order: { captions: Array.from({ length: 65 }, () => 'IOS') } } }, 'youtube.order.captions'],
  ])('%# an over-long field is refused, named', (profile, expected) => {
    expect(refusal(() => loadPlatformProfile({ file: file(JSON.stringify(profile)) }))).toContain(expected);
  });

  it('the built-in profile and an ordinary override still load', () => {
    expect(loadPlatformProfile()).toEqual(BUILTIN_PROFILE);
    const profile = loadPlatformProfile({ file: file(JSON.stringify({ browsers: { mobile: { userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1' } } })) });
    expect(profile.browsers.mobile.userAgent).toContain('iPhone');
  });
});
