/** A description's timestamps are chapters only by YouTube's rule: from 0:00, at least three, in order, 10 s apart. */
import { describe, expect, it, vi } from 'vitest';
import type { YT } from 'youtubei.js';
import type { Logger } from '../../src/log.js';
import { chaptersFromDescription, transcriptChapters } from '../../src/platforms/youtube/chapters.js';

describe('chapters from a description', () => {
  it('reads the usual list, with the title on either side of the time and an hour part', () => {
    const description = 'About the talk.\n\nCHAPTERS\n0:00 Intro\n(2:44) What is it?\n• 10:15 - The trials\nThe end – 1:02:03\n\nFollow us!';
    expect(chaptersFromDescription(description, 4000)).toEqual([
      { title: 'Intro', start: 0 },
      { title: 'What is it?', start: 164 },
      { title: 'The trials', start: 615 },
      { title: 'The end', start: 3723 },
    ]);
  });

  it('gives none where YouTube would draw none', () => {
    expect(chaptersFromDescription('0:10 Late start\n1:00 Two\n2:00 Three')).toEqual([]);
    expect(chaptersFromDescription('0:00 One\n1:00 Two')).toEqual([]);
    expect(chaptersFromDescription('0:00 One\n0:05 Too close\n2:00 Three')).toEqual([]);
    expect(chaptersFromDescription('0:00 One\n1:00 Two\n9:00 Past the end', 300)).toEqual([]);
    expect(chaptersFromDescription('Meet us at 12:30 on Friday.\nDoors 19:00.')).toEqual([]);
    expect(chaptersFromDescription(null)).toEqual([]);
  });

  it('never throws on hostile text, and bounds a title', () => {
    const long = `0:00 ${'x'.repeat(10_000)}\n1:00 b\n2:00 c`;
    expect(chaptersFromDescription(long)[0].title).toHaveLength(200);
    for (const text of ['99:99 bad\n0:00 a', ':\n::\n0:\n:00', '0:00\n1:00\n2:00', `${'0:00 '.repeat(5_000)}`, '\u0000\u2028\ud800']) {
      expect(() => chaptersFromDescription(text)).not.toThrow();
    }
  });
});

describe("a transcript's chapters", () => {
  const reply = (description: string) => ({ basic_info: { short_description: description, duration: 600 } }) as unknown as YT.VideoInfo;
  const markers = [{ title: 'Intro', start: 0 }, { title: 'Design', start: 70 }];

  it("takes the description's without asking for the watch reply", async () => {
    const load = vi.fn(async () => markers);
    const chapters = transcriptChapters('v', load);
    expect(await chapters(reply('0:00 One\n1:00 Two\n2:00 Three'))).toHaveLength(3);
    expect(load).not.toHaveBeenCalled();
  });

  it('else asks for the markers once, however many replies are read', async () => {
    const load = vi.fn(async () => markers);
    const chapters = transcriptChapters('v', load);
    expect(await chapters(reply('No times here.'))).toEqual(markers);
    expect(await chapters(reply('Nor here.'))).toEqual(markers);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('leaves them out when the watch request fails, logged at debug', async () => {
    const debug = vi.fn();
    const chapters = transcriptChapters('v', async () => Promise.reject(new Error('YouTube answered 429')), { debug } as unknown as Logger);
    expect(await chapters(reply('No times here.'))).toEqual([]);
    expect(debug).toHaveBeenCalledWith(expect.objectContaining({ videoId: 'v' }), expect.stringContaining('no chapters'));
  });
});
