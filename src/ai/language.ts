/**
 * Language names to ISO 639-1 codes. OpenAI-compatible transcription endpoints report the detected
 * language as an English name ("english") in verbose_json, some servers as a code ("en").
 */
const EXTRA_NAMES: Record<string, string> = {
  castilian: 'es',
  valencian: 'ca',
  flemish: 'nl',
  'haitian creole': 'ht',
  moldavian: 'ro',
  moldovan: 'ro',
  letzeburgesch: 'lb',
  pushto: 'ps',
  panjabi: 'pa',
  sinhalese: 'si',
  burmese: 'my',
  mandarin: 'zh',
  cantonese: 'yue',
};

let byName: Map<string, string> | undefined;

/** Built once from the runtime's own language names (full ICU), so no table is kept here. */
function names(): Map<string, string> {
  if (byName) return byName;
  byName = new Map(Object.entries(EXTRA_NAMES));
  const display = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (const a of letters) {
    for (const b of letters) {
      const code = a + b;
      const name = display.of(code)?.toLowerCase();
      if (name && !byName.has(name)) byName.set(name, code);
    }
  }
  return byName;
}

/** A code ("en", "pt-BR") as it is, lower-cased primary part; a name ("english") as its code; else undefined. */
export function languageCode(value: string | undefined | null): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^[a-z]{2,3}([-_][a-z0-9]{2,8})*$/i.test(text)) return text.replace(/_/g, '-').replace(/^[a-z]+/i, (p) => p.toLowerCase());
  return names().get(text.toLowerCase());
}
