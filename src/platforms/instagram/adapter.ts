/**
 * Instagram posts and reels for a logged-out visitor, in the order the 2026 pages allow: the
 * post page's embedded Relay data (xig_polaris_media → if_not_gated_logged_out, item.ts), then
 * the embed page (embed.ts), then the page's meta tags (meta.ts, what pages carried until 2024).
 * Not built: the logged-out /api/graphql flow (LSD token, doc_id) and the cookie-authenticated
 * /api/v1/media/{pk}/info/ call yt-dlp also uses.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import type { PlatformPost } from '../post.js';
import { fetchPlatform } from '../browser.js';
import { findObject, relayResults } from '../serverjs.js';
import { parseInstagramUrl, type InstagramRef } from './url.js';
import { postFromItem, type IgItem } from './item.js';
import { embedContext, postFromEmbed } from './embed.js';
import { postFromMetaTags } from './meta.js';

type Gate = { found: false } | { found: true; item: IgItem | null };

/** The page's xig_polaris_media: the item when shown to logged-out visitors, null when gated. */
function polarisMedia(html: string): Gate {
  const holder = findObject(
    relayResults(html).map((r) => r.data),
    (n) => 'xig_polaris_media' in n,
  );
  const media = holder?.xig_polaris_media as { if_not_gated_logged_out?: IgItem | null } | null | undefined;
  if (!holder || !media) return { found: false };
  return { found: true, item: media.if_not_gated_logged_out ?? null };
}

async function fromEmbed(http: HttpClient, ref: InstagramRef, signal?: AbortSignal): Promise<PlatformPost | undefined> {
  let html: string;
  try {
    html = (await fetchPlatform(http, `https://www.instagram.com/p/${ref.code}/embed/captioned/`, 'The Instagram embed', { signal })).text();
  } catch {
    // The embed is a second source: its failure leaves the first source's answer standing.
    return undefined;
  }
  const context = embedContext(html);
  return context ? postFromEmbed(context, ref.code) : undefined;
}

export async function fetchInstagram(http: HttpClient, url: URL, signal?: AbortSignal): Promise<PlatformPost> {
  const ref = parseInstagramUrl(url);
  if (!ref) throw new GleanerError('UNSUPPORTED_URL', `${url} is not an Instagram post or reel URL.`);
  const pageUrl = `https://www.instagram.com/${ref.kind}/${ref.code}/`;
  const page = await fetchPlatform(http, pageUrl, 'The Instagram post', { signal });
  const loginWall = new GleanerError('CONTENT_UNAVAILABLE', `Instagram asks for a login to see post ${ref.code} (it may be private or age-restricted).`);
  if (new URL(page.url).pathname.startsWith('/accounts/login')) {
    const embedded = await fromEmbed(http, ref, signal);
    if (embedded) return embedded;
    throw loginWall;
  }
  const html = page.text();
  const polaris = polarisMedia(html);
  if (polaris.found && polaris.item) return postFromItem(polaris.item, ref.code);
  const embedded = await fromEmbed(http, ref, signal);
  if (embedded) return embedded;
  if (polaris.found) throw loginWall;
  return postFromMetaTags(html, ref, pageUrl);
}
