// Channels: a reference (UC… id, @handle, /c/ or /user/ URL) resolved to its UC… id, and the
// channel's metadata from its page plus, on the 2024+ layout, the About panel's exact counts.
import { AppError } from '../../errors.js';
import type { Browse } from './browse.js';
import type { ChannelMetadata } from './channel.parse.js';
import { channelAboutContinuation, parseChannel, parseChannelAbout, withAbout } from './channel.parse.js';
import { type ChannelRef, parseChannelRef } from './ids.js';
import { ORIGIN } from './innertube.js';
import { asString, dig, findAll } from './tree.js';

const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;

/** How a reference reads in messages: the id, the @handle or the legacy path. */
export const channelLabel = (ref: ChannelRef): string =>
  ref.kind === 'id' ? ref.id : ref.kind === 'handle' ? ref.handle : ref.path;

/** A reference from what a caller gave: 400 when it is none of the forms the platform has. */
export function toChannelRef(ref: string | ChannelRef): ChannelRef {
  if (typeof ref !== 'string') return ref;
  const parsed = parseChannelRef(ref);
  if (!parsed) {
    throw new AppError('invalid_request', `Not a channel id, @handle or channel URL: ${ref.slice(0, 200)}`);
  }
  return parsed;
}

const notFound = (ref: ChannelRef) =>
  new AppError('not_found', `Channel ${channelLabel(ref)} not found`, channelLabel(ref));

/** The UC… id in a resolve_url answer: the browse endpoint it points to, when that is a channel. */
export function channelIdOfResolved(answer: unknown): string | null {
  for (const endpoint of findAll(answer, 'browseEndpoint')) {
    const id = asString(dig(endpoint, 'browseId'));
    if (id && CHANNEL_ID.test(id)) return id;
  }
  return null;
}

/**
 * The channel's UC… id. Handles and legacy URLs go through `navigation/resolve_url` (what the site
 * itself asks when a channel URL is opened), cached: 404 when the platform knows no such channel.
 */
export function resolveChannelId(browse: Browse, ref: ChannelRef): Promise<string> {
  if (ref.kind === 'id') return Promise.resolve(ref.id);
  const path = ref.kind === 'handle' ? `/${ref.handle}` : ref.path;
  // Handles and custom names are case-insensitive on the platform.
  return browse.cached(`yt:resolve:${path.toLowerCase()}`, async () => {
    const answer = await browse.innertube.call(
      'navigation/resolve_url',
      { url: new URL(path, ORIGIN).href },
      { client: 'WEB', notFound: notFound(ref).message },
    );
    const id = channelIdOfResolved(answer);
    if (!id) throw notFound(ref);
    return id;
  });
}

interface ChannelPage {
  channel: ChannelMetadata | null;
  aboutToken: string | null;
}

/**
 * A channel's metadata: its page (browse by id, the home tab) and, where the page has one, the
 * About panel's continuation for the exact counts. The panel is an addition: when the platform
 * fails it, the header's (rounded) counts are answered. 404 when the page holds no channel.
 */
export async function fetchChannel(browse: Browse, ref: ChannelRef): Promise<ChannelMetadata> {
  const id = await resolveChannelId(browse, ref);
  const message = notFound(ref).message;
  const page = await browse.page(
    'browse',
    { browseId: id },
    (answer): ChannelPage => ({
      channel: parseChannel(answer),
      aboutToken: channelAboutContinuation(answer),
    }),
    { cacheKey: `yt:channel:${id}`, notFound: message },
  );
  if (!page.channel) throw notFound(ref);
  const channel = { ...page.channel, id: page.channel.id ?? id };
  if (!page.aboutToken) return channel;
  const about = await browse
    .page('browse', { continuation: page.aboutToken }, parseChannelAbout, {
      cacheKey: `yt:channel-about:${id}`,
    })
    .catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'upstream_error') return null;
      throw err;
    });
  return withAbout(channel, about);
}
