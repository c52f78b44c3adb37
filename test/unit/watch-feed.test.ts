/** The feed reader of watches: RSS 2.0 (a podcast's enclosure wins over its link), Atom, and what is not a feed. */
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../src/watches/feed.js';

describe('parseFeed', () => {
  it('reads RSS items: guid as id, the enclosure before the link, relative links made absolute', () => {
    const xml = `<?xml version="1.0"?><rss version="2.0"><channel><title>Show</title>
      <item><title>Ep 2</title><link>https://example.com/ep2</link><guid isPermaLink="false">ep-2</guid><enclosure url="https://cdn.example.com/ep2.mp3" type="audio/mpeg" length="1"/></item>
      <item><title>Ep 1</title><link>/ep1</link></item>
      <item><title>no link</title></item>
      <item><title>bad</title><link>javascript:alert(1)</link></item>
    </channel></rss>`;
    expect(parseFeed(xml, 'https://example.com/feed.xml')).toEqual([
      { id: 'ep-2', url: 'https://cdn.example.com/ep2.mp3' },
      { id: 'https://example.com/ep1', url: 'https://example.com/ep1' },
    ]);
  });

  it('reads Atom entries: id, the alternate link (or an enclosure)', () => {
    const xml = `<feed xmlns="http://www.w3.org/2005/Atom"><title>c</title>
      <entry><id>yt:video:abcdefghijk</id><link rel="alternate" href="https://www.youtube.com/watch?v=abcdefghijk"/></entry>
      <entry><id>tag:x,2026:2</id><link rel="self" href="https://x/self"/><link rel="enclosure" href="https://x/a.mp3"/></entry>
      <entry><id>tag:x,2026:3</id><link href="https://x/three"/></entry>
    </feed>`;
    expect(parseFeed(xml, 'https://x/feed')).toEqual([
      { id: 'yt:video:abcdefghijk', url: 'https://www.youtube.com/watch?v=abcdefghijk' },
      { id: 'tag:x,2026:2', url: 'https://x/a.mp3' },
      { id: 'tag:x,2026:3', url: 'https://x/three' },
    ]);
  });

  it('an empty feed is no items; a page that is no feed is UNSUPPORTED_CONTENT', () => {
    expect(parseFeed('<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>', 'https://x/f')).toEqual([]);
    expect(() => parseFeed('<html><body><p>hello</p></body></html>', 'https://x/f')).toThrow(/not an RSS or Atom feed/);
  });
});
