// Recognising YouTube's ids in whatever a caller pastes: URLs of every host and
// path form, or bare ids. Pure functions; each answers null when the input is not one.

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;
// Handles: 3–30 letters (any script), digits, '_', '-', '.' (the platform's own rules).
const HANDLE = /^@?([\p{L}\p{M}\p{N}_.-]{3,30})$/u;
// Playlist ids by prefix: PL (user), UU/UULF/UUSH/UULV/UUMO (a channel's uploads), OLAK5uy_ (albums),
// RD (mixes), PU/FL/LL/EL/SP/TL… legacy kinds. Private ones (WL, LL alone) are not fetchable.
const PLAYLIST_ID = /^(?:PL|UU|OL|RD|FL|PU|EL|SP|TL|CL|UL|LL)[A-Za-z0-9_-]{10,70}$/;
const LEGACY_NAME = /^[\p{L}\p{M}\p{N}_.-]{1,100}$/u;

const MAIN_HOSTS = /^(?:(?:www|m|music|gaming)\.)?youtube\.com$/;
const NOCOOKIE_HOSTS = /^(?:www\.)?youtube-nocookie\.com$/;
const SHORT_HOSTS = /^(?:www\.)?youtu\.be$/;

/** A platform URL: http(s) on one of its hosts. Scheme-less input ("youtu.be/…") is accepted. */
export function parsePlatformUrl(input: string): URL | null {
  const raw = input.trim();
  if (!raw || /\s/.test(raw)) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(raw) ? raw : `https://${raw.replace(/^\/\//, '')}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  return isPlatformHost(url.hostname) ? url : null;
}

export function isPlatformHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return MAIN_HOSTS.test(h) || NOCOOKIE_HOSTS.test(h) || SHORT_HOSTS.test(h);
}

const segments = (url: URL) =>
  url.pathname
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });

const videoId = (candidate: string | null | undefined) =>
  // embed/videoseries?list=… is a playlist player whose name happens to be 11 characters long.
  candidate && VIDEO_ID.test(candidate) && candidate !== 'videoseries' ? candidate : null;

// Paths whose next segment is the video id.
const ID_PATHS = new Set(['shorts', 'embed', 'live', 'v', 'e', 'watch']);

/** The 11-character video id of a watch/youtu.be/shorts/embed/live/music/mobile URL, or a bare id. */
export function parseVideoId(input: string): string | null {
  const raw = input.trim();
  if (VIDEO_ID.test(raw)) return raw;
  const url = parsePlatformUrl(raw);
  return url ? videoIdOfUrl(url) : null;
}

/** The video id of a URL already parsed and known to be on one of the platform's hosts. */
export function videoIdOfUrl(url: URL): string | null {
  const host = url.hostname.toLowerCase();
  const parts = segments(url);
  if (SHORT_HOSTS.test(host)) return videoId(parts[0]);
  const [first, second] = parts;
  if (first === 'watch' && !second) return videoId(url.searchParams.get('v'));
  if (first && ID_PATHS.has(first)) return videoId(second);
  // Share links of old: /attribution_link?u=/watch?v=ID…
  if (first === 'attribution_link') {
    const inner = url.searchParams.get('u');
    return inner ? parseVideoId(new URL(inner, 'https://www.youtube.com').toString()) : null;
  }
  return null;
}

export type ChannelRef =
  | { kind: 'id'; id: string }
  /** `handle` keeps its leading '@', as the platform writes it. */
  | { kind: 'handle'; handle: string }
  /** A pre-handle custom URL; `path` is what to fetch, e.g. '/c/Name' or '/user/Name'. */
  | { kind: 'legacy'; path: string };

// First path segments that are pages of the platform, never a channel's vanity name.
const RESERVED = new Set([
  'watch',
  'shorts',
  'embed',
  'live',
  'playlist',
  'results',
  'feed',
  'channel',
  'c',
  'user',
  'v',
  'e',
  'hashtag',
  'premium',
  'account',
  'about',
  't',
  'redirect',
  'attribution_link',
  'signin',
  'logout',
  'gaming',
  'music',
  'kids',
  'post',
  'source',
  'howyoutubeworks',
  'creators',
  'ads',
  'sw.js',
  'favicon.ico',
  'robots.txt',
]);

const handleRef = (candidate: string): ChannelRef | null => {
  const m = HANDLE.exec(candidate);
  return m ? { kind: 'handle', handle: `@${m[1]}` } : null;
};

/** A channel: UC… id, @handle, or a /channel/, /c/, /user/, /@handle or vanity URL. */
export function parseChannelRef(input: string): ChannelRef | null {
  const raw = input.trim();
  if (CHANNEL_ID.test(raw)) return { kind: 'id', id: raw };
  if (raw.startsWith('@')) return handleRef(raw);
  const url = parsePlatformUrl(raw);
  if (!url) {
    // A bare name: channels' old custom names became their handles. A mistyped UC… id is not one.
    if (/^UC[A-Za-z0-9_-]{18,}$/.test(raw)) return null;
    return /^[A-Za-z0-9_.-]{3,30}$/.test(raw) ? handleRef(raw) : null;
  }
  if (!MAIN_HOSTS.test(url.hostname.toLowerCase())) return null;
  const [first, second] = segments(url);
  if (!first) return null;
  if (first.startsWith('@')) return handleRef(first);
  if (first === 'channel') return second && CHANNEL_ID.test(second) ? { kind: 'id', id: second } : null;
  if (first === 'c' || first === 'user') {
    return second && LEGACY_NAME.test(second) ? { kind: 'legacy', path: `/${first}/${second}` } : null;
  }
  if (!RESERVED.has(first.toLowerCase()) && LEGACY_NAME.test(first))
    return { kind: 'legacy', path: `/${first}` };
  return null;
}

/** A playlist id: `list=` of any platform URL, or a bare PL/UU/OL/RD… id. */
export function parsePlaylistId(input: string): string | null {
  const raw = input.trim();
  if (PLAYLIST_ID.test(raw)) return raw;
  const url = parsePlatformUrl(raw);
  if (!url) return null;
  const list = url.searchParams.get('list');
  return list && PLAYLIST_ID.test(list) ? list : null;
}
