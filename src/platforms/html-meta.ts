/** The <meta> tags of a page (OpenGraph, Twitter cards, description) by name, first value wins. */
import * as cheerio from 'cheerio';

export function metaTags(html: string): Map<string, string> {
  const $ = cheerio.load(html);
  const tags = new Map<string, string>();
  $('meta').each((_, element) => {
    const name = ($(element).attr('property') ?? $(element).attr('name'))?.toLowerCase();
    const content = $(element).attr('content');
    if (name && content !== undefined && !tags.has(name)) tags.set(name, content.trim());
  });
  return tags;
}
