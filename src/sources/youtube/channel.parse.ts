// Channel metadata out of a channel page's ytInitialData, in both header layouts: the old
// `c4TabbedHeaderRenderer` (to 2024) and `pageHeaderRenderer > pageHeaderViewModel` (rolled out
// from 2024-04), with `metadata.channelMetadataRenderer` beside either. Exact view and video counts
// only exist in the About panel (`aboutChannelViewModel`, 2024+; `channelAboutFullMetadataRenderer`
// before), a separate browse answer that can be merged in.

import { parseCount } from './counts.js';
import { errorAlert } from './initial-data.js';
import {
  absoluteUrl,
  asArray,
  asString,
  bestImage,
  dig,
  findAll,
  findFirst,
  isRecord,
  type JsonRecord,
  textOf,
} from './tree.js';

export interface ChannelMetadata {
  id: string | null;
  name: string | null;
  /** With its `@`, e.g. `@MLB`; null for channels from before handles. */
  handle: string | null;
  description: string | null;
  url: string | null;
  subscriberCount: number | null;
  videoCount: number | null;
  viewCount: number | null;
  thumbnail: string | null;
  banner: string | null;
}

/** What the About panel adds: exact counts and the full description. */
export interface ChannelAbout {
  id: string | null;
  description: string | null;
  subscriberCount: number | null;
  videoCount: number | null;
  viewCount: number | null;
  url: string | null;
}

const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;

const channelId = (v: unknown): string | null => {
  const s = asString(v);
  return s && CHANNEL_ID.test(s) ? s : null;
};

const handleOf = (v: unknown): string | null => {
  const s = asString(v)?.trim();
  if (!s) return null;
  const m = /(?:^|\/)(@[^/?#\s]+)/u.exec(s);
  return m ? decodeURIComponent(m[1]!) : null;
};

/** Texts of a pageHeaderViewModel's metadata rows, row by row. */
function metadataRows(viewModel: unknown): string[][] {
  return asArray(dig(viewModel, 'metadata', 'contentMetadataViewModel', 'metadataRows')).map((row) =>
    asArray(dig(row, 'metadataParts')).flatMap((part) => {
      const t = textOf(dig(part, 'text'));
      return t ? [t.trim()] : [];
    }),
  );
}

/**
 * Subscriber and video counts of the 2024 header: parts naming them in English are taken by name;
 * otherwise the first two counts after the handle are, in the order the platform shows them.
 */
function headerCounts(rows: string[][]): { subscribers: number | null; videos: number | null } {
  const parts = rows.flat().filter((p) => !p.startsWith('@'));
  const named = (re: RegExp) => {
    const p = parts.find((x) => re.test(x));
    return p === undefined ? undefined : parseCount(p);
  };
  let subscribers = named(/subscriber/i);
  let videos = named(/\bvideos?\b/i);
  if (subscribers === undefined && videos === undefined) {
    const counts = parts.filter((p) => /\d/.test(p));
    subscribers = counts.length > 1 ? parseCount(counts[0]) : undefined;
    videos = parseCount(counts[counts.length > 1 ? 1 : 0]);
  }
  return { subscribers: subscribers ?? null, videos: videos ?? null };
}

/**
 * Metadata of a channel page (any tab). Null when the page holds no channel — an ERROR alert
 * ("This channel does not exist.") or another kind of page — which the endpoint answers with 404.
 * `about`, when given, is the About panel's browse answer (see `channelAboutContinuation`).
 */
export function parseChannel(initialData: unknown, about?: unknown): ChannelMetadata | null {
  if (errorAlert(initialData)) return null;
  const meta = dig(initialData, 'metadata', 'channelMetadataRenderer');
  const header = dig(initialData, 'header');
  const c4 = dig(header, 'c4TabbedHeaderRenderer') ?? dig(header, 'carouselHeaderRenderer');
  const viewModel = findFirst(header, 'pageHeaderViewModel');
  if (!isRecord(meta) && !isRecord(c4) && !isRecord(viewModel)) return null;

  const rows = metadataRows(viewModel);
  const counts = headerCounts(rows);
  const id =
    channelId(dig(meta, 'externalId')) ??
    channelId(dig(c4, 'channelId')) ??
    channelId(findFirst(header, 'browseId')) ??
    // Every tab's endpoint browses the channel itself.
    channelId(
      findFirst(dig(initialData, 'contents', 'twoColumnBrowseResultsRenderer', 'tabs'), 'browseId'),
    ) ??
    channelId(
      /\/channel\/(UC[\w-]{22})/.exec(
        asString(dig(initialData, 'microformat', 'microformatDataRenderer', 'urlCanonical')) ?? '',
      )?.[1],
    );
  // A bare view-model header without a channel id is some other page (2024+ playlists have one).
  if (!id && !isRecord(meta) && !isRecord(c4)) return null;
  const handle =
    handleOf(textOf(dig(c4, 'channelHandleText'))) ??
    handleOf(rows.flat().find((p) => p.startsWith('@'))) ??
    handleOf(dig(meta, 'vanityChannelUrl')) ??
    handleOf(dig(c4, 'navigationEndpoint', 'browseEndpoint', 'canonicalBaseUrl'));
  const channelUrl = asString(dig(meta, 'channelUrl'));

  const channel: ChannelMetadata = {
    id,
    name:
      asString(dig(meta, 'title')) ??
      asString(dig(c4, 'title')) ??
      textOf(dig(viewModel, 'title', 'dynamicTextViewModel', 'text')) ??
      asString(dig(header, 'pageHeaderRenderer', 'pageTitle')),
    handle,
    description:
      asString(dig(meta, 'description')) ??
      textOf(dig(viewModel, 'description', 'descriptionPreviewViewModel', 'description')),
    url: channelUrl ? absoluteUrl(channelUrl) : id ? `https://www.youtube.com/channel/${id}` : null,
    subscriberCount:
      parseCount(textOf(dig(c4, 'subscriberCountText'))) ??
      parseCount(textOf(dig(c4, 'subscriberCountText', 'accessibility', 'accessibilityData', 'label'))) ??
      counts.subscribers,
    videoCount: parseCount(textOf(dig(c4, 'videosCountText'))) ?? counts.videos,
    viewCount: null,
    // channelMetadataRenderer's avatar is the large one (900 px); the headers carry small ones.
    thumbnail:
      bestImage(dig(meta, 'avatar')) ??
      bestImage(dig(c4, 'avatar')) ??
      bestImage(findFirst(dig(viewModel, 'image'), 'image')),
    banner: bestImage(dig(c4, 'banner')) ?? bestImage(findFirst(dig(viewModel, 'banner'), 'image')),
  };
  return about === undefined ? channel : withAbout(channel, parseChannelAbout(about));
}

/**
 * The About panel: `aboutChannelViewModel` (2024+, strings) or `channelAboutFullMetadataRenderer`
 * (the old About tab, text nodes), wherever it sits in the answer. Null when neither is there.
 */
export function parseChannelAbout(answer: unknown): ChannelAbout | null {
  const vm = findFirst(answer, 'aboutChannelViewModel');
  const full = findFirst(answer, 'channelAboutFullMetadataRenderer');
  const node: JsonRecord | null = isRecord(vm) ? vm : isRecord(full) ? full : null;
  if (!node) return null;
  const url = asString(node.canonicalChannelUrl);
  return {
    id: channelId(node.channelId),
    description: textOf(node.description),
    subscriberCount: parseCount(textOf(node.subscriberCountText)),
    videoCount: parseCount(textOf(node.videoCountText)),
    viewCount: parseCount(textOf(node.viewCountText)),
    url: url ? absoluteUrl(url) : null,
  };
}

/** The page's metadata with the About panel's exact counts and full description laid over it. */
export function withAbout(channel: ChannelMetadata, about: ChannelAbout | null): ChannelMetadata {
  if (!about) return channel;
  return {
    ...channel,
    id: channel.id ?? about.id,
    description: about.description ?? channel.description,
    subscriberCount: about.subscriberCount ?? channel.subscriberCount,
    videoCount: about.videoCount ?? channel.videoCount,
    viewCount: about.viewCount ?? channel.viewCount,
    url: channel.url ?? about.url,
  };
}

/**
 * Token of the browse request that loads the About panel (2024+ header: the description's
 * "…more" opens an engagement panel filled by that continuation). Null on older layouts.
 */
export function channelAboutContinuation(initialData: unknown): string | null {
  const header = dig(initialData, 'header');
  for (const command of findAll(header, 'continuationCommand')) {
    const token = asString(dig(command, 'token'));
    const request = asString(dig(command, 'request'));
    if (token && (request === null || request === 'CONTINUATION_REQUEST_TYPE_BROWSE')) return token;
  }
  return null;
}
