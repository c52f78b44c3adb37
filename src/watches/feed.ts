/**
 * RSS 2.0 and Atom feeds: the entries' ids and the URL to transcribe, newest first as feeds list
 * them. A podcast entry's enclosure (the audio) wins over its link (the episode page).
 * Read with cheerio in XML mode; the feed is fetched through the guarded client like any caller URL.
 */
import { createHash } from 'node:crypto';
import * as cheerio from 'cheerio';
import { GleanerError } from '../errors.js';
import type { HttpClient } from '../net/http.js';

export interface FeedItem {
  id: string;
  url: string;
}

/** Largest feed read (a big podcast feed with years of episodes is a few MB). */
const FEED_MAX_BYTES = 10 * 1024 * 1024;
/**
 * An entry id longer than this is kept as its digest (ids are compared, never shown as such), and a link
 * longer than MAX_URL_LENGTH is skipped: a feed decides their size, and they travel in the watch's records.
 */
export const MAX_ITEM_ID_LENGTH = 512;
const MAX_URL_LENGTH = 8_192;

const boundedId = (id: string) => (id.length <= MAX_ITEM_ID_LENGTH ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`);

export function parseFeed(xml: string, feedUrl: string): FeedItem[] {
  const $ = cheerio.load(xml, { xml: true });
  const absolute = (href: string | undefined) => {
    if (!href?.trim() || href.length > MAX_URL_LENGTH) return undefined;
    try {
      const url = new URL(href.trim(), feedUrl);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
    } catch {
      return undefined;
    }
  };
  const items: FeedItem[] = [];
  if ($('rss, rdf\\:RDF, RDF').length > 0 || $('channel > item').length > 0 || $('item').length > 0) {
    $('item').each((_, element) => {
      const entry = $(element);
      const url = absolute(entry.children('enclosure').attr('url')) ?? absolute(entry.children('link').first().text()) ?? absolute(entry.attr('rdf:about'));
      if (!url) return;
      items.push({ id: boundedId(entry.children('guid').first().text().trim() || url), url });
    });
  }
  $('entry').each((_, element) => {
    const entry = $(element);
    const links = entry.children('link');
    const pick = (rel: string) => links.filter((_, link) => ($(link).attr('rel') ?? 'alternate') === rel).first().attr('href');
    const url = absolute(pick('enclosure')) ?? absolute(pick('alternate')) ?? absolute(links.first().attr('href'));
    if (!url) return;
    items.push({ id: boundedId(entry.children('id').first().text().trim() || url), url });
  });
  if (items.length === 0 && $('rss, feed, rdf\\:RDF').length === 0) {
    throw new GleanerError('UNSUPPORTED_CONTENT', `${feedUrl} is not an RSS or Atom feed.`);
  }
  return items;
}

export async function readFeed(http: HttpClient, feedUrl: string, signal?: AbortSignal): Promise<FeedItem[]> {
  const response = await http.fetch(feedUrl, { maxBytes: FEED_MAX_BYTES, signal, headers: { accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.1' } });
  if (response.status === 404 || response.status === 410) throw new GleanerError('CONTENT_NOT_FOUND', `The feed ${feedUrl} answered HTTP ${response.status}.`);
  if (response.status >= 400) throw new GleanerError('UPSTREAM_ERROR', `The feed ${feedUrl} answered HTTP ${response.status}.`);
  return parseFeed(response.text(), feedUrl);
}
