/**
 * One X post as both of Gleaner's sources describe it (the guest GraphQL API and the syndication
 * API answer in different shapes); the adapter builds metadata and media from this alone.
 */
export interface XMediaEntity {
  type?: 'video' | 'animated_gif' | 'photo';
  /** The t.co link the post's text ends with for this attachment. */
  url?: string;
  media_url_https?: string;
  original_info?: { width?: number; height?: number };
  video_info?: { duration_millis?: number; variants?: Array<{ bitrate?: number; content_type?: string; url?: string }> };
}

export interface XStatus {
  id: string;
  text: string;
  createdAt?: string;
  lang?: string;
  author?: { id?: string; name: string | null; handle?: string; avatarUrl?: string; verified?: boolean };
  counts: { views?: number; likes?: number; comments?: number; shares?: number; saves?: number };
  hashtags: string[];
  media: XMediaEntity[];
  /** Which API answered: the syndication one has fewer counts (no reposts or bookmarks). */
  source: 'graphql' | 'syndication';
}

/** X escapes &, < and > in post text, and nothing else. */
export function unescapeText(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
