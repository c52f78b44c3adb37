/**
 * Which platform profile an outbound client's platform requests follow. The composition root binds
 * the configured profile to the app's HttpClient once; a client never bound (a unit test's) follows
 * the built-in profile. One map keyed by the client, as the InnerTube session is, so two apps in
 * one process keep their own profiles.
 */
import type { HttpClient } from '../net/http.js';
import { BUILTIN_PROFILE, type PlatformProfile } from '../profile/load.js';

const bound = new WeakMap<HttpClient, PlatformProfile>();

export function bindProfile(http: HttpClient, profile: PlatformProfile): void {
  bound.set(http, profile);
}

export function profileOf(http: HttpClient): PlatformProfile {
  return bound.get(http) ?? BUILTIN_PROFILE;
}
