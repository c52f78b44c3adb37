/**
 * Change tracking's entries (web/changes.ts) on both stores: the embedded SQLite and a real
 * redis-server. Each says new, same, changed; keeps one history per account; keeps a bounded text;
 * and forgets an entry once its time is up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { changeKey, MAX_DIFF_CHARS, MAX_EDIT_LENGTH, MAX_KEPT_CHARS, trackChange } from '../../src/web/changes.js';
import { hasRedis, startRedis } from '../support/processes.js';

const view = { format: 'markdown', onlyMainContent: true, noLinks: false };
const url = 'https://Example.com/news?id=1#top';
const DAY = 86_400_000;

function behaviour(name: string, open: () => Promise<Store>) {
  describe(`${name} store`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(() => store.close());

    const track = (accountId: string, text: string, keepMs = DAY) => trackChange(store, { accountId, url, view, text, keepMs });

    it('says new, then same, then changed with a unified diff; another account has its own history', async () => {
      const account = `acct_${name}1`;
      expect(await track(account, 'one\ntwo\nthree\n')).toEqual({ changeStatus: 'new', previousScrapeAt: null });
      const same = await track(account, 'one\ntwo\nthree\n');
      expect(same.changeStatus).toBe('same');
      const changed = await track(account, 'one\nTWO\nthree\n');
      expect(changed.changeStatus).toBe('changed');
      // The time of the scrape before it (the `same` one), not of the first.
      expect(changed.previousScrapeAt! >= same.previousScrapeAt!).toBe(true);
      expect(changed.diff).toMatch(/^@@ -1,3 \+1,3 @@$/m);
      expect(changed.diff).toMatch(/^-two$/m);
      expect(changed.diff).toMatch(/^\+TWO$/m);
      expect((await track(`acct_${name}2`, 'one\nTWO\nthree\n')).changeStatus).toBe('new');
      // The URL is normalized: the fragment and the host's case name the same page.
      expect(changeKey(account, url, view)).toBe(changeKey(account, 'https://example.com/news?id=1', view));
      expect(changeKey(account, url, view)).not.toBe(changeKey(`acct_${name}2`, url, view));
    });

    it('keeps at most MAX_KEPT_CHARS of a long text, and says a change past them is past the compared part', async () => {
      const account = `acct_${name}long`;
      const long = `${'a line of the long page\n'.repeat(Math.ceil((MAX_KEPT_CHARS * 2) / 24))}`;
      await track(account, long);
      const kept = await store.get<{ text: string; length: number }>(changeKey(account, url, view));
      expect(kept!.text.length).toBe(MAX_KEPT_CHARS);
      expect(kept!.length).toBe(long.length);
      const changed = await track(account, `${long}one more line at the end\n`);
      expect(changed.changeStatus).toBe('changed');
      expect(changed.diff).toMatch(/Only the first 100,000 characters/);
    });

    const lines = (count: number, tag: (i: number) => string) => Array.from({ length: 1_000 }, (_, i) => `${i < count ? tag(i) : 'kept'} line ${i} of a page rewritten line by line`).join('\n');

    it('cuts a long diff at MAX_DIFF_CHARS and says so', async () => {
      const account = `acct_${name}wide`;
      // 240 lines changed: 480 edits, within MAX_EDIT_LENGTH, and a diff of about 28,000 characters.
      await track(account, lines(240, () => 'old'));
      const changed = await track(account, lines(240, () => 'new'));
      expect(changed.diff!.length).toBeLessThan(MAX_DIFF_CHARS + 300);
      expect(changed.diff).toMatch(/^-old line 0 of a page/m);
      expect(changed.diff).toMatch(/The diff is cut at 10,000 characters/);
    });

    it('gives up the line diff of a page rewritten past MAX_EDIT_LENGTH, and says so', async () => {
      const account = `acct_${name}rewritten`;
      await track(account, lines(600, () => 'old'));
      const changed = await track(account, lines(600, () => 'new'));
      expect(changed.changeStatus).toBe('changed');
      expect(changed.diff).toBe(`\\ The text changed in more than ${MAX_EDIT_LENGTH} line edits: no line diff; read the content.\n`);
    });

    it('forgets an entry once its time is up', async () => {
      const account = `acct_${name}expiry`;
      await track(account, 'short-lived\n', 300);
      const key = changeKey(account, url, view);
      while ((await store.get(key)) !== undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await track(account, 'short-lived\n')).changeStatus).toBe('new');
    });
  });
}

behaviour('sqlite', () => openStore({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-changes-')) }));

describe.skipIf(!hasRedis())('on Redis', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  beforeAll(async () => {
    redis = await startRedis();
  }, 60_000);
  afterAll(() => redis?.stop());
  behaviour('redis', () => openStore({ dataDir: os.tmpdir(), storeUrl: redis.url }));
});
