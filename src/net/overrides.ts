import type { UpstreamOverride } from '../config.js';

/**
 * Redirects a URL whose host matches an override (the host itself or a subdomain) to the override's
 * origin, keeping path and query; the original host travels in X-Forwarded-Host.
 */
export function applyOverride(url: URL, overrides: UpstreamOverride[]): { url: string; forwardedHost?: string; overridden: boolean } {
  const host = url.hostname.toLowerCase();
  const match = overrides.find((o) => host === o.host || host.endsWith(`.${o.host}`));
  if (!match) return { url: url.toString(), overridden: false };
  return { url: `${match.origin}${url.pathname}${url.search}`, forwardedHost: url.host, overridden: true };
}
