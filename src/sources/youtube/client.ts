// The platform as our code sees it: player answers per client, watch pages, timedtext bodies —
// fetched through Upstreams (proxies, retries on blocks), parsed, and cached (single-flight) so that
// a repeated request does not touch the platform. Knows nothing of transcripts or our shapes.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import { CONSENT_COOKIE, consentValue, isBlocked } from './blocks.js';
import { BASE_HEADERS, CLIENTS, type ClientName, Innertube, ORIGIN } from './innertube.js';
import { PLAYER_MEMBERS, type PlayerInfo, parsePlayer } from './player.js';
import {
  commentCountFromNext,
  likeCountFromNext,
  ownerFromNext,
  parseWatchPage,
  type VideoOwner,
} from './watch-page.js';

export interface YouTubeClientDeps {
  upstreams: Upstreams;
  cache: ResultCache;
  /** How long player answers and watch pages are kept (0: not cached). */
  ttlMs: number;
}

/** What we keep of a watch page: its (web-client) player answer and what is shown under the video. */
export interface WatchInfo {
  player: PlayerInfo | null;
  likeCount: number | null;
  owner: VideoOwner | null;
  commentCount: number | null;
}

/** The player clients, in the order they are tried. */
export const PLAYER_CLIENTS: readonly ClientName[] = ['ANDROID', 'IOS'];

export class YouTubeClient {
  readonly innertube: Innertube;

  constructor(private readonly deps: YouTubeClientDeps) {
    this.innertube = new Innertube(deps.upstreams);
  }

  /** The parsed /player answer of one client (cached per client and video). */
  player(videoId: string, client: ClientName): Promise<PlayerInfo> {
    return cached(this.deps.cache, `yt:player:${client}:${videoId}`, this.deps.ttlMs, async () =>
      parsePlayer(
        await this.innertube.call(
          'player',
          { videoId, contentCheckOk: true, racyCheckOk: true },
          { client, members: PLAYER_MEMBERS },
        ),
      ),
    );
  }

  /** The watch page, read for what only web answers carry (upload date, likes). */
  watch(videoId: string): Promise<WatchInfo> {
    return cached(this.deps.cache, `yt:watch:${videoId}`, this.deps.ttlMs, async () => {
      const page = parseWatchPage(await this.watchHtml(videoId));
      return {
        player: page.player ? parsePlayer(page.player) : null,
        likeCount: likeCountFromNext(page.initialData),
        owner: ownerFromNext(page.initialData),
        commentCount: commentCountFromNext(page.initialData),
      };
    });
  }

  private async watchHtml(videoId: string): Promise<string> {
    let cookie = CONSENT_COOKIE;
    // The consent cookie normally keeps the EU interstitial away; if it still shows, accept it once.
    for (let round = 0; round < 2; round++) {
      const res = await this.deps.upstreams.fetch(
        'youtube',
        `${ORIGIN}/watch?v=${encodeURIComponent(videoId)}&hl=en&gl=US&has_verified=1&bpctr=9999999999`,
        {
          headers: { ...BASE_HEADERS, cookie, 'user-agent': CLIENTS.WEB.userAgent },
          maxRedirects: 0,
          blocked: isBlocked,
        },
      );
      if (res.status !== 200) {
        throw new AppError('upstream_error', `youtube watch page answered HTTP ${res.status}`);
      }
      const html = res.body.toString('utf8');
      const v = consentValue(html);
      if (!v) return html;
      cookie = `SOCS=CAI; CONSENT=YES+${v}`;
    }
    throw new AppError('upstream_error', 'youtube kept showing its consent page');
  }

  /** A timedtext body ('' when the platform answered an empty one). */
  async timedtext(url: string): Promise<string> {
    const res = await this.deps.upstreams.fetch('youtube', url, {
      headers: { ...BASE_HEADERS, 'user-agent': CLIENTS.WEB.userAgent },
      maxRedirects: 0,
      blocked: isBlocked,
    });
    if (res.status !== 200) {
      throw new AppError('upstream_error', `youtube timedtext answered HTTP ${res.status}`);
    }
    return res.body.toString('utf8');
  }
}
