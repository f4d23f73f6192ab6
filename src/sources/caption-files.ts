// Caption files the platforms publish (TikTok's WebVTT tracks, Facebook's
// caption files, which may be WebVTT or SRT) → cues in ms. One tolerant reader for both: blocks
// separated by blank lines, a timing line "start --> end" (".mmm" or ",mmm"; hours optional), then
// text lines, with markup and settings dropped. Pure.
import type { TranscriptCue } from './transcript.js';

const TIMING =
  /^\s*(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})\s*-->\s*(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})/;

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  lrm: '',
  rlm: '',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const ms = (h: string | undefined, m: string, s: string, frac: string) =>
  (Number(h ?? 0) * 3600 + Number(m) * 60 + Number(s)) * 1000 + Number(frac.padEnd(3, '0'));

/** Cues of a WebVTT or SRT body, in file order; empty when there are none. */
export function parseCaptionFile(body: string): TranscriptCue[] {
  const lines = body.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const cues: TranscriptCue[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = TIMING.exec(lines[i]!);
    if (!m) continue;
    const start = ms(m[1], m[2]!, m[3]!, m[4]!);
    const end = ms(m[5], m[6]!, m[7]!, m[8]!);
    const text: string[] = [];
    while (i + 1 < lines.length && lines[i + 1]!.trim() !== '' && !TIMING.test(lines[i + 1]!)) {
      text.push(lines[++i]!);
    }
    const clean = decodeEntities(text.join(' ').replace(/<[^>]*>/g, ''))
      .replace(/\s+/g, ' ')
      .trim();
    if (clean) cues.push({ text: clean, offset: start, duration: Math.max(0, end - start) });
  }
  return cues;
}

/** ISO 639-3-ish platform codes with a region ("eng-US", "spa-ES") → BCP-47 style "en", "es". */
const THREE_TO_TWO: Record<string, string> = {
  eng: 'en',
  spa: 'es',
  fra: 'fr',
  fre: 'fr',
  deu: 'de',
  ger: 'de',
  por: 'pt',
  ita: 'it',
  jpn: 'ja',
  kor: 'ko',
  zho: 'zh',
  chi: 'zh',
  cmn: 'zh',
  rus: 'ru',
  ara: 'ar',
  hin: 'hi',
  ind: 'id',
  tur: 'tr',
  vie: 'vi',
  tha: 'th',
  pol: 'pl',
  nld: 'nl',
  dut: 'nl',
  ukr: 'uk',
  swe: 'sv',
  ron: 'ro',
  rum: 'ro',
  ces: 'cs',
  cze: 'cs',
  ell: 'el',
  gre: 'el',
  heb: 'he',
  msa: 'ms',
  may: 'ms',
  fil: 'fil',
  tgl: 'tl',
};

/** "eng-US" → "en", "en_US" → "en-US", "pt-BR" stays; unknown 3-letter codes are kept as they are. */
export function normaliseLang(code: string): string {
  const [base = '', region] = code.trim().split(/[-_]/);
  const lower = base.toLowerCase();
  if (lower.length === 3) return THREE_TO_TWO[lower] ?? lower;
  return region && lower.length === 2 && region.length === 2 ? `${lower}-${region.toUpperCase()}` : lower;
}
