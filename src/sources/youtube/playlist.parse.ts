// What a playlist page says about the playlist itself: title, description, counts, last update,
// thumbnail and owner. The platform has shown them in the sidebar (2020–23:
// playlistSidebarPrimaryInfoRenderer stats, videoOwnerRenderer), in a header (2023:
// playlistHeaderRenderer; 2024+: pageHeaderViewModel with metadata rows), in playlistMetadataRenderer
// and in the microformat; each field is taken from the first place that has it. Pure.
import { parseCount, parseRelativeTime } from './counts.js';
import { asArray, asString, bestImage, dig, findAll, findFirst, isRecord, textOf } from './tree.js';

export interface PlaylistInfo {
  title: string | null;
  description: string | null;
  videoCount: number | null;
  viewCount: number | null;
  /** ISO 8601 (UTC); a date the platform shows without a time is midnight UTC of that day. */
  lastUpdated: string | null;
  thumbnail: string | null;
  channel: { id: string | null; name: string | null };
}

const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;

/** "Last updated on Mar 11, 2020", "Updated today", "Updated yesterday", "Updated 3 days ago". */
export function parseUpdated(text: string | null, nowMs: number): string | null {
  if (!text) return null;
  const day = (ms: number) => `${new Date(ms).toISOString().slice(0, 10)}T00:00:00.000Z`;
  if (/\btoday\b/i.test(text)) return day(nowMs);
  if (/\byesterday\b/i.test(text)) return day(nowMs - 86_400_000);
  const relative = parseRelativeTime(text, nowMs);
  if (relative) return relative;
  const absolute = /(?:on\s+)?([A-Z][a-z]{2,8}\.? \d{1,2}, \d{4}|\d{1,2} [A-Z][a-z]{2,8}\.? \d{4})\s*$/.exec(
    text.trim(),
  )?.[1];
  if (!absolute) return null;
  const ms = Date.parse(`${absolute.replace('.', '')} UTC`);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** Every display text that may hold a count or the last update, in order of trust. */
function statTexts(initialData: unknown): string[] {
  const primary = findFirst(dig(initialData, 'sidebar'), 'playlistSidebarPrimaryInfoRenderer');
  const header = findFirst(dig(initialData, 'header'), 'playlistHeaderRenderer');
  const viewModel = findFirst(dig(initialData, 'header'), 'pageHeaderViewModel');
  const texts = [
    ...asArray(dig(primary, 'stats')).map(textOf),
    ...asArray(dig(header, 'stats')).map(textOf),
    textOf(dig(header, 'numVideosText')),
    textOf(dig(header, 'viewCountText')),
    textOf(dig(header, 'byline')),
    // 2024+: metadata rows of parts, each an attributed string ("12 videos", "819,321 views").
    ...findAll(dig(viewModel, 'metadata'), 'metadataParts').flatMap((parts) =>
      asArray(parts).map((p) => textOf(dig(p, 'text'))),
    ),
  ];
  return texts.filter((t): t is string => !!t);
}

function ownerOf(initialData: unknown): { id: string | null; name: string | null } {
  const owner = findFirst(dig(initialData, 'sidebar'), 'videoOwnerRenderer');
  const header = findFirst(dig(initialData, 'header'), 'playlistHeaderRenderer');
  const idOf = (node: unknown) => {
    const id = asString(findFirst(node, 'browseId'));
    return id && CHANNEL_ID.test(id) ? id : null;
  };
  if (isRecord(owner)) {
    return { id: idOf(owner.navigationEndpoint), name: textOf(owner.title) };
  }
  if (isRecord(header)) {
    return {
      id: idOf(header.ownerEndpoint) ?? idOf(header.ownerText),
      name: textOf(header.ownerText),
    };
  }
  // 2024+: the header's metadata row links the owner ("by <name>").
  const viewModel = findFirst(dig(initialData, 'header'), 'pageHeaderViewModel');
  for (const parts of findAll(dig(viewModel, 'metadata'), 'metadataParts')) {
    for (const part of asArray(parts)) {
      const id = idOf(dig(part, 'text'));
      if (id) return { id, name: textOf(dig(part, 'text'))?.replace(/^by\s+/i, '') ?? null };
    }
  }
  return { id: null, name: null };
}

/** The playlist's own details from its page (ytInitialData or a browse answer for `VL<id>`). */
export function parsePlaylistInfo(initialData: unknown, nowMs: number): PlaylistInfo {
  const primary = findFirst(dig(initialData, 'sidebar'), 'playlistSidebarPrimaryInfoRenderer');
  const header = findFirst(dig(initialData, 'header'), 'playlistHeaderRenderer');
  const viewModel = findFirst(dig(initialData, 'header'), 'pageHeaderViewModel');
  const metadata = dig(initialData, 'metadata', 'playlistMetadataRenderer');
  const micro = dig(initialData, 'microformat', 'microformatDataRenderer');
  const texts = statTexts(initialData);
  const find = (re: RegExp) => texts.find((t) => re.test(t)) ?? null;
  const description =
    asString(dig(metadata, 'description')) ??
    textOf(dig(primary, 'description')) ??
    textOf(dig(header, 'descriptionText')) ??
    textOf(findFirst(dig(viewModel, 'description'), 'content'));
  return {
    title:
      asString(dig(metadata, 'title')) ??
      textOf(dig(primary, 'title')) ??
      textOf(dig(header, 'title')) ??
      textOf(dig(viewModel, 'title', 'dynamicTextViewModel', 'text')),
    description: description || null,
    videoCount: parseCount(find(/\bvideos?\b|\bepisodes?\b/i)),
    viewCount: parseCount(find(/\bviews?\b/i)),
    lastUpdated: parseUpdated(find(/updated/i), nowMs),
    thumbnail:
      bestImage(findFirst(dig(primary, 'thumbnailRenderer'), 'thumbnail')) ??
      bestImage(findFirst(dig(header, 'playlistHeaderBanner'), 'thumbnail')) ??
      bestImage(findFirst(dig(viewModel, 'heroImage'), 'image')) ??
      bestImage(dig(micro, 'thumbnail')),
    channel: ownerOf(initialData),
  };
}
