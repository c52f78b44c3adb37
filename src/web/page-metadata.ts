/**
 * A web page's metadata in the unified Metadata shape (platform "web"), read from JSON-LD,
 * OpenGraph, Twitter cards, Dublin Core and Parse.ly tags, <title>, meta description, <html lang>,
 * the canonical link and the icon links. Unknown values stay null or absent, never invented.
 */
import type { Metadata } from '../model/content.js';
import { cleanText, type DomDocument } from './dom.js';

type JsonObject = Record<string, unknown>;

const ARTICLE_TYPES = /^(?:Article|NewsArticle|BlogPosting|ReportageNewsArticle|AnalysisNewsArticle|OpinionNewsArticle|TechArticle|ScholarlyArticle|SocialMediaPosting|LiveBlogPosting|Report|WebPage|VideoObject|Recipe|Product|Event|CreativeWork|Review|HowTo|QAPage|ItemPage|ProfilePage)$/;

export function typesOf(node: JsonObject): string[] {
  const type = node['@type'];
  return (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string');
}

/** Every object in the page's JSON-LD blocks, @graph members included. */
export function jsonLdNodes(doc: DomDocument): JsonObject[] {
  const nodes: JsonObject[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 3 || !value || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach((v) => visit(v, depth + 1));
    const node = value as JsonObject;
    nodes.push(node);
    if (node['@graph']) visit(node['@graph'], depth + 1);
  };
  for (const script of doc.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      visit(JSON.parse((script.textContent ?? '').replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, '')), 0);
    } catch {
      // A broken JSON-LD block is common and tells nothing; the other sources still apply.
    }
  }
  return nodes;
}

function str(value: unknown): string | null {
  if (typeof value === 'string') return cleanText(value);
  if (Array.isArray(value)) return str(value[0]);
  if (value && typeof value === 'object') return str((value as JsonObject).name ?? (value as JsonObject)['@value']);
  return null;
}

function imageUrl(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return imageUrl(value[0]);
  if (value && typeof value === 'object') return imageUrl((value as JsonObject).url ?? (value as JsonObject).contentUrl);
  return null;
}

function absolute(value: string | null | undefined, base: string): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

function isoDate(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** <meta> values by lower-case name, property or itemprop; the first occurrence wins. */
function metaTags(doc: DomDocument): Map<string, string[]> {
  const tags = new Map<string, string[]>();
  for (const meta of doc.querySelectorAll('meta')) {
    const content = meta.getAttribute('content');
    if (content === null || !content.trim()) continue;
    for (const attribute of ['property', 'name', 'itemprop']) {
      for (const key of (meta.getAttribute(attribute) ?? '').toLowerCase().split(/\s+/).filter(Boolean)) {
        const list = tags.get(key) ?? [];
        list.push(content.trim());
        tags.set(key, list);
      }
    }
  }
  return tags;
}

export interface PageMetadataOptions {
  /** The URL the page was served from (after redirects). */
  url: string;
  /** The base for relative URLs (a <base href>, else url). */
  baseUrl?: string;
  /** The Content-Language response header, if any. */
  contentLanguage?: string;
}

export function extractPageMetadata(doc: DomDocument, options: PageMetadataOptions): Metadata {
  const base = options.baseUrl ?? options.url;
  const tags = metaTags(doc);
  const meta = (...names: string[]) => {
    for (const name of names) {
      const value = cleanText(tags.get(name)?.[0]);
      if (value) return value;
    }
    return null;
  };
  const ld = jsonLdNodes(doc);
  const article = ld.find((node) => typesOf(node).some((t) => ARTICLE_TYPES.test(t) && t !== 'WebPage')) ?? ld.find((node) => typesOf(node).includes('WebPage'));
  const website = ld.find((node) => typesOf(node).includes('WebSite'));

  const title =
    str(article?.headline) ??
    meta('og:title', 'twitter:title', 'dc.title', 'dcterm:title', 'parsely-title') ??
    str(article?.name) ??
    cleanText(doc.querySelector('title')?.textContent);

  const description =
    meta('og:description', 'twitter:description', 'description', 'dc.description', 'dcterm:description') ?? str(article?.description);

  const authorValue = article?.author ?? article?.creator;
  const authorFromLd = str(authorValue);
  const authorUrl = authorValue && typeof authorValue === 'object' && !Array.isArray(authorValue) ? str((authorValue as JsonObject).url) : null;
  const metaAuthor = meta('author', 'article:author', 'parsely-author', 'dc.creator', 'dcterm:creator', 'twitter:creator');
  const bylineLink = cleanText(doc.querySelector('[rel="author"], [itemprop="author"] [itemprop="name"], .byline [rel="author"]')?.textContent);
  // article:author is often a profile URL: that is where the author lives, not their name.
  const metaAuthorIsUrl = !!metaAuthor && /^https?:\/\//.test(metaAuthor);
  const authorName = authorFromLd ?? (metaAuthorIsUrl ? null : metaAuthor) ?? bylineLink;
  const author =
    authorName || metaAuthorIsUrl
      ? { name: authorName, ...(authorUrl || metaAuthorIsUrl ? { url: absolute(authorUrl ?? metaAuthor, base) } : {}) }
      : null;
  if (author && author.url === undefined) delete (author as { url?: string }).url;

  const thumbnails: Metadata['thumbnails'] = [];
  const seenImages = new Set<string>();
  const addImage = (value: string | null | undefined, width?: string | null, height?: string | null) => {
    const url = absolute(value, base);
    if (!url || seenImages.has(url)) return;
    seenImages.add(url);
    const w = Number(width);
    const h = Number(height);
    thumbnails.push({ url, ...(w > 0 ? { width: Math.round(w) } : {}), ...(h > 0 ? { height: Math.round(h) } : {}) });
  };
  addImage(meta('og:image', 'og:image:url', 'og:image:secure_url'), meta('og:image:width'), meta('og:image:height'));
  for (const extra of tags.get('og:image')?.slice(1) ?? []) addImage(extra);
  addImage(meta('twitter:image', 'twitter:image:src'));
  addImage(imageUrl(article?.image ?? article?.thumbnailUrl));

  const publishedAt = isoDate(
    meta('article:published_time', 'og:published_time', 'parsely-pub-date', 'datepublished', 'dc.date', 'dcterm:created', 'date', 'publish-date') ??
      str(article?.datePublished) ??
      doc.querySelector('time[datetime][pubdate], article time[datetime]')?.getAttribute('datetime'),
  );

  const tagList = new Set<string>();
  for (const value of tags.get('article:tag') ?? []) tagList.add(value.trim());
  const keywords = meta('keywords', 'news_keywords', 'parsely-tags') ?? (Array.isArray(article?.keywords) ? (article?.keywords as unknown[]).join(',') : str(article?.keywords));
  for (const keyword of keywords?.split(',') ?? []) if (keyword.trim()) tagList.add(keyword.trim());

  const language =
    cleanText(doc.documentElement?.getAttribute('lang')) ??
    cleanText(doc.documentElement?.getAttribute('xml:lang')) ??
    meta('og:locale', 'content-language', 'dc.language', 'language')?.replace('_', '-') ??
    str(article?.inLanguage) ??
    cleanText(options.contentLanguage?.split(',')[0]);

  const canonicalUrl = absolute(doc.querySelector('link[rel="canonical"]')?.getAttribute('href'), base) ?? absolute(meta('og:url'), base);

  const siteName = meta('og:site_name', 'application-name', 'twitter:site') ?? str((article?.publisher as JsonObject | undefined)?.name) ?? str(website?.name);

  const icons = [...doc.querySelectorAll('link[rel]')].filter((link) => /(?:^|\s)(?:icon|shortcut icon|apple-touch-icon)(?:\s|$)/i.test(link.getAttribute('rel') ?? ''));
  const preferred = icons.find((link) => /(?:^|\s)icon(?:\s|$)/i.test(link.getAttribute('rel') ?? '')) ?? icons[0];
  const favicon = absolute(preferred?.getAttribute('href'), base) ?? absolute('/favicon.ico', options.url);

  const url = canonicalUrl ?? options.url;
  const result: Metadata = {
    platform: 'web',
    url,
    id: url,
    title,
    description,
    author,
    thumbnails,
    tags: [...tagList],
  };
  if (publishedAt) result.publishedAt = publishedAt;
  if (language) result.language = language;
  if (canonicalUrl) result.canonicalUrl = canonicalUrl;
  if (siteName) result.siteName = siteName;
  if (favicon) result.favicon = favicon;
  return result;
}
