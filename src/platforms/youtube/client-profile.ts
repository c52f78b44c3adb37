/**
 * The InnerTube client identities of the platform profile, applied to what youtubei.js sends.
 * youtubei.js fills each request's context and headers from its own constants (a release's
 * versions, which YouTube retires within months); every InnerTube request passes through Gleaner's
 * fetch, so there the client it names gets the profile's name, version, user agent and device.
 */
import { Constants } from '../../profile/youtubei-constants.js';
import type { InnertubeClientProfile, PlatformProfile } from '../../profile/load.js';
import { clientHints } from '../../net/identity.js';

/** The clientName youtubei.js writes for one of its client keys (IOS -> iOS, YTMUSIC -> WEB_REMIX). */
function youtubeiName(key: string): string | undefined {
  const clients = Constants.CLIENTS as Record<string, { NAME: string } | undefined>;
  return clients[key === 'YTKIDS' ? 'WEB_KIDS' : key]?.NAME;
}

/** The profile entry for a clientName found in a request body, by youtubei.js's spelling or the profile's. */
export function profileClientFor(profile: PlatformProfile, clientName: string): InnertubeClientProfile | undefined {
  for (const [key, entry] of Object.entries(profile.youtube.clients)) {
    if (youtubeiName(key) === clientName || entry.clientName === clientName) return entry;
  }
  return undefined;
}

interface InnertubeBody {
  context?: { client?: Record<string, unknown> };
}

/**
 * The body and headers of one InnerTube request with the profile's identity of the client it
 * names; unchanged when the body is not InnerTube JSON or names a client the profile leaves alone.
 */
export function withClientProfile(profile: PlatformProfile, body: Uint8Array, headers: Record<string, string>): { body: Uint8Array; headers: Record<string, string> } {
  let json: InnertubeBody;
  try {
    json = JSON.parse(Buffer.from(body).toString('utf8')) as InnertubeBody;
  } catch {
    return { body, headers };
  }
  const client = json?.context?.client;
  const entry = typeof client?.clientName === 'string' ? profileClientFor(profile, client.clientName) : undefined;
  if (!client || !entry) return { body, headers };
  // The web clients are a browser: without a user agent of their own they are the profile's desktop
  // browser (MWEB its mobile one), with that browser's client hints.
  const browser = entry.userAgent ? undefined : entry.clientName === 'MWEB' ? profile.browsers.mobile : entry.clientName.startsWith('WEB') ? profile.browsers.desktop : undefined;
  const agent = entry.userAgent ?? browser?.userAgent;
  client.clientName = entry.clientName;
  client.clientVersion = entry.clientVersion;
  if (agent) client.userAgent = agent;
  const device = entry.device;
  if (device.make) client.deviceMake = device.make;
  if (device.model) client.deviceModel = device.model;
  if (device.osName) client.osName = device.osName;
  if (device.osVersion) client.osVersion = device.osVersion;
  if (device.androidSdkVersion) client.androidSdkVersion = device.androidSdkVersion;
  const rewritten: Record<string, string> = { ...headers, 'x-youtube-client-name': String(entry.clientNameId), 'x-youtube-client-version': entry.clientVersion };
  if (agent) rewritten['user-agent'] = agent;
  if (browser) Object.assign(rewritten, clientHints(browser.headers));
  return { body: new Uint8Array(Buffer.from(JSON.stringify(json), 'utf8')), headers: rewritten };
}
