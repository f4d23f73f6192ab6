// X's uploaded captions live only in its HLS playlists: the master playlist names them as
// `#EXT-X-MEDIA:TYPE=SUBTITLES` renditions, each a media playlist of WebVTT segments. Pure.

export interface SubtitleRendition {
  lang: string;
  name: string | null;
  url: string;
  /** AUTOSELECT/DEFAULT=YES: the platform's own pick. */
  isDefault: boolean;
}

/** The quoted or bare attributes of one tag line (`KEY=VALUE,KEY="VALUE, with commas"`). */
function attributes(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([A-Z0-9-]+)=("([^"]*)"|[^,]*)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out[m[1]!] = m[3] ?? m[2]!;
  return out;
}

const resolve = (uri: string, base: string): string | null => {
  try {
    return new URL(uri, base).toString();
  } catch {
    return null;
  }
};

/** Subtitle renditions of a master playlist, in its order. */
export function subtitleRenditions(master: string, baseUrl: string): SubtitleRendition[] {
  const out: SubtitleRendition[] = [];
  for (const line of master.split(/\r?\n/)) {
    if (!line.startsWith('#EXT-X-MEDIA:')) continue;
    const a = attributes(line.slice('#EXT-X-MEDIA:'.length));
    if (a.TYPE !== 'SUBTITLES' || !a.URI) continue;
    const url = resolve(a.URI, baseUrl);
    if (!url) continue;
    out.push({
      lang: a.LANGUAGE || 'und',
      name: a.NAME || null,
      url,
      isDefault: a.DEFAULT === 'YES' || a.AUTOSELECT === 'YES',
    });
  }
  return out;
}

/** Segment URLs of a media playlist (at most `max`). */
export function segmentUrls(playlist: string, baseUrl: string, max = 200): string[] {
  const out: string[] = [];
  for (const raw of playlist.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const url = resolve(line, baseUrl);
    if (url) out.push(url);
    if (out.length >= max) break;
  }
  return out;
}
