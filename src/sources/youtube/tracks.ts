// Which caption track answers a language preference: a manual track in `lang`, an
// auto-generated one in `lang`, the platform's translation of the original track into `lang`, else
// the original-language track (manual before auto). A translation request takes the same order but
// never falls back to another language. Pure.
import type { CaptionTrack, PlayerInfo } from './player.js';

export interface TrackChoice {
  track: CaptionTrack;
  /** The language of what will be returned (the translation's when tlang is set). */
  lang: string;
  /** Set when the platform translates the track (timedtext `tlang`). */
  tlang: string | null;
}

// The platform still uses a few withdrawn ISO 639 codes.
const ALIASES: Record<string, string> = { he: 'iw', in: 'id', ji: 'yi', jw: 'jv' };

const norm = (code: string) => {
  const lower = code.toLowerCase().replace(/_/g, '-');
  const [primary = '', ...rest] = lower.split('-');
  return [ALIASES[primary] ?? primary, ...rest].join('-');
};

/** 2: the same code; 1: the same language (en ~ en-GB, pt-BR ~ pt); 0: another language. */
function match(code: string, wanted: string): number {
  const a = norm(code);
  const b = norm(wanted);
  if (a === b) return 2;
  return a.split('-')[0] === b.split('-')[0] ? 1 : 0;
}

function best<T>(items: T[], code: (t: T) => string, wanted: string): T | null {
  let found: T | null = null;
  let score = 0;
  for (const item of items) {
    const s = match(code(item), wanted);
    if (s > score) {
      found = item;
      score = s;
    }
  }
  return found;
}

/** The native languages, each once, in the platform's order. */
export function availableLangs(tracks: readonly CaptionTrack[]): string[] {
  return [...new Set(tracks.map((t) => t.languageCode))];
}

/** The track in the video's spoken language: speech recognition runs in it, else the default track. */
export function originalTrack(info: Pick<PlayerInfo, 'tracks' | 'defaultTrackIndex'>): CaptionTrack | null {
  const { tracks } = info;
  const asr = tracks.find((t) => t.kind === 'asr');
  const fallback = tracks[info.defaultTrackIndex ?? 0] ?? tracks[0];
  const lang = asr?.languageCode ?? fallback?.languageCode;
  if (!lang) return null;
  return tracks.find((t) => t.kind === 'manual' && t.languageCode === lang) ?? asr ?? fallback ?? null;
}

export function chooseTrack(
  info: Pick<PlayerInfo, 'tracks' | 'defaultTrackIndex' | 'translationLanguages'>,
  wanted?: string | null,
): TrackChoice | null {
  const original = originalTrack(info);
  if (!original) return null;
  if (wanted) {
    const pick = (kind: CaptionTrack['kind']) =>
      best(
        info.tracks.filter((t) => t.kind === kind),
        (t) => t.languageCode,
        wanted,
      );
    const native = pick('manual') ?? pick('asr');
    if (native) return { track: native, lang: native.languageCode, tlang: null };
    if (original.isTranslatable) {
      // Without a list (some clients omit it) the platform is trusted to translate into `lang`.
      const target =
        info.translationLanguages.length > 0
          ? best(info.translationLanguages, (l) => l.languageCode, wanted)?.languageCode
          : wanted;
      if (target && match(target, original.languageCode) === 0) {
        return { track: original, lang: target, tlang: target };
      }
    }
  }
  return { track: original, lang: original.languageCode, tlang: null };
}

/**
 * The track that gives `wanted` itself: one in that language, else the platform's translation of the
 * original track; null when the platform cannot give the captions in that language.
 */
export function translationChoice(
  info: Pick<PlayerInfo, 'tracks' | 'defaultTrackIndex' | 'translationLanguages'>,
  wanted: string,
): TrackChoice | null {
  const choice = chooseTrack(info, wanted);
  return choice && match(choice.lang, wanted) > 0 ? choice : null;
}

/** The timedtext URL of a choice: the platform's default XML format, translated when asked. */
export function timedtextUrl(choice: TrackChoice): string {
  const url = new URL(choice.track.baseUrl);
  url.searchParams.delete('fmt');
  if (choice.tlang) url.searchParams.set('tlang', choice.tlang);
  return url.toString();
}
