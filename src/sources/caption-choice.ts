// The language preference (docs/decisions.md) over one platform's caption tracks: a creator track in `lang`,
// an automatic one in `lang`, then the original-language track (creator before automatic), then
// whatever comes first. Translations count only when they are in the language asked for. Pure.

export interface ChoosableTrack {
  readonly lang: string;
  /** Made by speech recognition or machine translation, not by the creator. */
  readonly auto: boolean;
  readonly original: boolean;
  readonly translated?: boolean;
}

const base = (lang: string) => lang.toLowerCase().split(/[-_]/)[0]!;

/** Same language: exact, else the same base language ("pt-BR" asked, "pt" given). */
const sameLang = (a: string, b: string) => a.toLowerCase() === b.toLowerCase() || base(a) === base(b);

export function chooseTrack<T extends ChoosableTrack>(
  tracks: readonly T[],
  lang: string | null | undefined,
): T | null {
  if (tracks.length === 0) return null;
  if (lang) {
    const inLang = tracks.filter((t) => sameLang(t.lang, lang));
    const pick =
      inLang.find((t) => !t.auto && !t.translated) ?? inLang.find((t) => !t.translated) ?? inLang[0];
    if (pick) return pick;
  }
  const originals = tracks.filter((t) => t.original && !t.translated);
  return (
    originals.find((t) => !t.auto) ??
    originals[0] ??
    tracks.find((t) => !t.auto && !t.translated) ??
    tracks.find((t) => !t.translated) ??
    tracks[0]!
  );
}

/** Languages in the order the platform listed them, without repeats. */
export const languagesOf = (tracks: readonly { lang: string }[]) => [...new Set(tracks.map((t) => t.lang))];
