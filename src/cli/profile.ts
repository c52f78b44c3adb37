/**
 * `gleaner profile [--json]`: the platform profile in force (built-in, GLEANER_PLATFORM_PROFILE and
 * the shorthand variables merged). --json prints it whole but for an operator's own credential:
 * saved and edited, it is a valid GLEANER_PLATFORM_PROFILE file.
 *
 * An X bearer token the operator set (GLEANER_X_BEARER_TOKEN or a profile file), and any login
 * header (Cookie, Authorization, ...) of a header set, are left out of the output, with a note on
 * stderr: a file saved from it falls back to the built-in values there, and GLEANER_X_BEARER_TOKEN
 * still applies over the file. The built-in token is the public web client's, known to everyone,
 * and is printed as it is.
 */
import { parseOptions } from './usage.js';
import type { Config } from '../config.js';
import { BUILTIN_PROFILE, CREDENTIAL_HEADER, profileAgeDays, profileHeaderSets, profileSecrets, type PlatformProfile } from '../profile/load.js';
import { redactText } from '../redact.js';
import { youtubeProfileWarnings } from '../platforms/youtube/clients.js';

/** The profile as printed, without a credential of the operator's (see the file's head), and the paths left out. */
export function printableProfile(profile: PlatformProfile): { profile: PlatformProfile; left: string[] } {
  const printed = structuredClone(profile);
  const left: string[] = [];
  if (profileSecrets(profile).includes(profile.x.bearerToken)) {
    delete (printed.x as Partial<PlatformProfile['x']>).bearerToken;
    left.push('x.bearerToken');
  }
  for (const [where, headers] of profileHeaderSets(printed)) {
    for (const name of Object.keys(headers)) {
      if (!CREDENTIAL_HEADER.test(name)) continue;
      delete headers[name];
      left.push(`${where}.${name}`);
    }
  }
  return { profile: printed, left };
}

export async function runProfile(config: Config, args: string[]): Promise<number> {
  const { values } = parseOptions(args, { json: { type: 'boolean', default: false } });
  const profile = config.platformProfile;
  if (values.json) {
    const { profile: printed, left } = printableProfile(profile);
    if (left.length > 0) {
      process.stderr.write(
        `Left out of this output: ${left.join(', ')} (credentials you set, in GLEANER_X_BEARER_TOKEN or your profile file). A file saved from it falls back to the built-in values there (X's public web token) unless you add them back; GLEANER_X_BEARER_TOKEN, if still set, applies over the file.\n`,
      );
    }
    process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
  } else {
    // The summary names no token; it is redacted all the same, as every text this process shows.
    process.stdout.write(redactText(summary(profile, config.GLEANER_PLATFORM_PROFILE)));
  }
  return 0;
}

function summary(profile: PlatformProfile, file: string | undefined): string {
  const lines = [
    `Platform profile of ${profile.date} (${profileAgeDays(profile.date)} days old)${file ? `, ${file} merged over the built-in profile of ${BUILTIN_PROFILE.date}` : ', built in'}.`,
    '',
    'YouTube InnerTube clients:',
    ...Object.entries(profile.youtube.clients).map(
      ([key, c]) => `  ${key.padEnd(10)} ${c.clientName} ${c.clientVersion}  c=${c.urlClientName}  PO token: captions ${c.poToken.captions ? 'yes' : 'no'}, streams ${c.poToken.streams ? 'yes' : 'no'}  (checked ${c.checked.date}: ${c.checked.source})`,
    ),
    `  order for captions: ${profile.youtube.order.captions.join(', ')}; for audio: ${profile.youtube.order.audio.join(', ')}  (checked ${profile.youtube.order.checked.date})`,
    ...youtubeProfileWarnings(profile).map((warning) => `  warning: ${warning}`),
    'Browser identities:',
    ...(['desktop', 'mobile'] as const).map((kind) => `  ${kind.padEnd(10)} ${profile.browsers[kind].userAgent}  (checked ${profile.browsers[kind].checked.date}: ${profile.browsers[kind].checked.source})`),
    `X: TweetResultByRestId query id ${profile.x.tweetQueryId}  (checked ${profile.x.checked.date}: ${profile.x.checked.source})`,
    `Instagram: doc_id ${profile.instagram.docId}, app id ${profile.instagram.appId}, ASBD id ${profile.instagram.asbdId}  (checked ${profile.instagram.checked.date}: ${profile.instagram.checked.source})`,
    `TikTok: page headers ${Object.keys(profile.tiktok.pageHeaders).join(', ') || 'none beyond the browser identity'}; media headers ${Object.keys(profile.tiktok.mediaHeaders).join(', ')}  (checked ${profile.tiktok.checked.date})`,
    '',
    '`gleaner profile --json > profile.json`, edit, then GLEANER_PLATFORM_PROFILE=profile.json (see docs/platform-profile.md).',
  ];
  return `${lines.join('\n')}\n`;
}
