/** X (Twitter) post URLs: x.com/<user>/status/<id>, twitter.com/..., x.com/i/status/<id>, /statuses/, mobile. hosts. */
export function parseXUrl(url: URL): string | undefined {
  const host = url.hostname.toLowerCase().replace(/^(www|mobile|m)\./, '');
  if (host !== 'x.com' && host !== 'twitter.com') return undefined;
  return /^\/(?:[A-Za-z0-9_]+|i(?:\/web)?)\/status(?:es)?\/(\d{1,20})/.exec(url.pathname)?.[1];
}
