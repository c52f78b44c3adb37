/**
 * Language names and codes as providers and platforms write them ("english", "eng-US", "en") to
 * one form: ISO 639-1 (with the region kept where one was given). Whisper's verbose_json names the
 * language in English words; TikTok writes ISO 639-2 with a region.
 */

const NAMES: Record<string, string> = {
  afrikaans: 'af', arabic: 'ar', armenian: 'hy', azerbaijani: 'az', belarusian: 'be', bosnian: 'bs', bulgarian: 'bg',
  catalan: 'ca', chinese: 'zh', croatian: 'hr', czech: 'cs', danish: 'da', dutch: 'nl', english: 'en', estonian: 'et',
  finnish: 'fi', french: 'fr', galician: 'gl', german: 'de', greek: 'el', hebrew: 'he', hindi: 'hi', hungarian: 'hu',
  icelandic: 'is', indonesian: 'id', italian: 'it', japanese: 'ja', kannada: 'kn', kazakh: 'kk', korean: 'ko',
  latvian: 'lv', lithuanian: 'lt', macedonian: 'mk', malay: 'ms', marathi: 'mr', maori: 'mi', nepali: 'ne',
  norwegian: 'no', persian: 'fa', polish: 'pl', portuguese: 'pt', romanian: 'ro', russian: 'ru', serbian: 'sr',
  slovak: 'sk', slovenian: 'sl', spanish: 'es', swahili: 'sw', swedish: 'sv', tagalog: 'tl', tamil: 'ta', thai: 'th',
  turkish: 'tr', ukrainian: 'uk', urdu: 'ur', vietnamese: 'vi', welsh: 'cy', bengali: 'bn', punjabi: 'pa', telugu: 'te',
};

const ISO639_2: Record<string, string> = {
  ara: 'ar', ben: 'bn', bul: 'bg', cat: 'ca', ces: 'cs', cze: 'cs', cmn: 'zh', zho: 'zh', chi: 'zh', dan: 'da', deu: 'de',
  ger: 'de', ell: 'el', gre: 'el', eng: 'en', est: 'et', fas: 'fa', per: 'fa', fin: 'fi', fil: 'tl', fra: 'fr', fre: 'fr',
  heb: 'he', hin: 'hi', hrv: 'hr', hun: 'hu', ind: 'id', ita: 'it', jpn: 'ja', kor: 'ko', lav: 'lv', lit: 'lt', msa: 'ms',
  may: 'ms', nld: 'nl', dut: 'nl', nor: 'no', nob: 'nb', pol: 'pl', por: 'pt', ron: 'ro', rum: 'ro', rus: 'ru', slk: 'sk',
  slo: 'sk', slv: 'sl', spa: 'es', srp: 'sr', swe: 'sv', tam: 'ta', tel: 'te', tha: 'th', tur: 'tr', ukr: 'uk', urd: 'ur',
  vie: 'vi', yue: 'zh', tgl: 'tl',
};

/** "english" -> "en", "eng-US" -> "en-US", "pt-BR" -> "pt-BR"; undefined when it cannot tell. */
export function languageCode(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const named = NAMES[trimmed.toLowerCase()];
  if (named) return named;
  const match = /^([A-Za-z]{2,3})(?:[-_]([A-Za-z0-9]{2,8}))?$/.exec(trimmed);
  if (!match) return undefined;
  const base = match[1].toLowerCase();
  const short = base.length === 3 ? ISO639_2[base] : base;
  if (!short) return undefined;
  return match[2] ? `${short}-${match[2].length === 2 ? match[2].toUpperCase() : match[2]}` : short;
}

/** True when a track in `available` serves a request for `wanted` ("en" matches "en-US"). */
export function sameLanguage(wanted: string, available: string): boolean {
  const a = wanted.toLowerCase();
  const b = available.toLowerCase();
  return a === b || b.startsWith(`${a}-`) || a.startsWith(`${b}-`);
}
