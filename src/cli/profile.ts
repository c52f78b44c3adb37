/**
 * `gleaner profile [--json]`: the platform profile in force (built-in, GLEANER_PLATFORM_PROFILE and
 * the shorthand variables merged). --json prints it whole: saved and edited, it is a valid
 * GLEANER_PLATFORM_PROFILE file.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { BUILTIN_PROFILE, profileAgeDays, type PlatformProfile } from '../profile/load.js';
import { youtubeProfileWarnings } from '../platforms/youtube/clients.js';

export async function runProfile(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } }, allowPositionals: false });
  const profile = config.platformProfile;
  process.stdout.write(values.json ? `${JSON.stringify(profile, null, 2)}\n` : summary(profile, config.GLEANER_PLATFORM_PROFILE));
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
