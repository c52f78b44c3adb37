/**
 * Turning response bytes into text: the charset from the Content-Type header, else a byte-order
 * mark, else an HTML <meta charset> / http-equiv declaration near the top, else UTF-8 (which is
 * what nearly every page without a declaration is today).
 */
import iconv from 'iconv-lite';

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = contentType?.match(/charset\s*=\s*["']?([^"';\s]+)/i);
  return match?.[1].toLowerCase();
}

/** The charset an HTML document declares in its first bytes, per the HTML prescan (simplified). */
export function charsetFromMeta(body: Buffer): string | undefined {
  const head = body.subarray(0, 4096).toString('latin1');
  const direct = head.match(/<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.-]+)/i);
  return direct?.[1].toLowerCase();
}

function charsetFromBom(body: Buffer): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

export function detectCharset(body: Buffer, contentType?: string): string {
  const declared = charsetFromContentType(contentType) ?? charsetFromBom(body);
  if (declared) return declared;
  const isHtmlLike = !contentType || /html|xml/i.test(contentType);
  return (isHtmlLike && charsetFromMeta(body)) || 'utf-8';
}

/**
 * Decodes like a browser: labels map to WHATWG encodings (iso-8859-1 means windows-1252), then
 * iconv-lite does the decoding, because Node 20's TextDecoder decodes windows-1252 as latin1.
 */
export function decodeBody(body: Buffer, contentType?: string): { text: string; charset: string } {
  const label = detectCharset(body, contentType);
  let charset = 'utf-8';
  try {
    charset = new TextDecoder(label).encoding;
  } catch {
    if (iconv.encodingExists(label)) charset = label;
  }
  if (charset === 'utf-8') return { text: new TextDecoder('utf-8').decode(body), charset };
  if (iconv.encodingExists(charset)) return { text: iconv.decode(body, charset), charset };
  return { text: new TextDecoder(charset).decode(body), charset };
}
