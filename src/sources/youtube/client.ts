// The platform as our code sees it: player answers per client, watch pages, timedtext bodies —
// fetched through Upstreams (proxies, retries on blocks), parsed, and cached (single-flight) so that
// a repeated request does not touch the platform. Knows nothing of transcripts or our shapes.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import { CONSENT_COOKIE, consentValue, isBlocked, isCaptionBlock } from './blocks.js';
import { chaptersFromNext, type PageChapters } from './chapters.js';
import { defaultPlayerChain, type PlayerClient } from './client-table.js';
import { BASE_HEADERS, type ClientName, Innertube, ORIGIN } from './innertube.js';
import { PLAYER_MEMBERS, type PlayerInfo, type PlayerUse, parsePlayer, playabilityError } from './player.js';
import { type ChainUse, NextClient, PlayerChain, passesOn } from './player-chain.js';
import type { PoToken, PoTokenSource } from './po-token.js';
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
  /** The player clients in the order tried (UNFURL_YOUTUBE_CLIENTS); unset: the built-in chain. */
  clients?: readonly PlayerClient[] | null;
  /** Where proof-of-origin tokens come from, for the clients whose player request carries one. */
  poTokens?: PoTokenSource | null;
}

/** What we keep of a watch page: its (web-client) player answer and what is shown under the video. */
export interface WatchInfo {
  player: PlayerInfo | null;
  likeCount: number | null;
  owner: VideoOwner | null;
  commentCount: number | null;
  /** The chapters the page marks (absent from pages kept before they were read). */
  chapters?: PageChapters;
}

export class YouTubeClient {
  readonly innertube: Innertube;
  /** The player clients and which of them answered lately. */
  readonly chain: PlayerChain;

  constructor(private readonly deps: YouTubeClientDeps) {
    this.chain = new PlayerChain(deps.clients ?? defaultPlayerChain());
    this.innertube = new Innertube(deps.upstreams, this.chain.clients);
  }

  /** Asks the player clients in turn (see PlayerChain.walk). */
  walk<T>(use: ChainUse, attempt: (client: PlayerClient) => Promise<T>): Promise<T> {
    return this.chain.walk(use, attempt);
  }

  /**
   * The first player answer that serves `use`, walking the clients: one whose state is the client's
   * own (bot check, login wall, unplayable for it) passes to the next; one whose state is the
   * video's (unavailable, private, region-locked) is returned for the caller to map.
   */
  playerFor(videoId: string, use: PlayerUse): Promise<PlayerInfo> {
    return this.walk(use === 'metadata' ? 'metadata' : 'captions', async (client) => {
      const info = await this.player(videoId, client.name);
      const err = playabilityError(info, use, videoId);
      if (err && passesOn(info)) throw new NextClient(err);
      return info;
    });
  }

  /**
   * The parsed /player answer of one client (cached per client and video). A client whose player
   * request carries a proof-of-origin token gets one bound to the video when a source is configured;
   * a source that fails passes the walk to the next client, with its reason.
   */
  player(videoId: string, client: ClientName): Promise<PlayerInfo> {
    return cached(this.deps.cache, `yt:player:${client}:${videoId}`, this.deps.ttlMs, async () => {
      const pot = await this.playerToken(videoId, client);
      return parsePlayer(
        await this.innertube.call(
          'player',
          {
            videoId,
            contentCheckOk: true,
            racyCheckOk: true,
            ...(pot && { serviceIntegrityDimensions: { poToken: pot.token } }),
          },
          { client, members: PLAYER_MEMBERS, visitorData: pot?.visitorData },
        ),
      );
    });
  }

  private async playerToken(videoId: string, client: ClientName): Promise<PoToken | null> {
    const source = this.deps.poTokens;
    if (!source || !this.innertube.client(client).playerPoToken) return null;
    try {
      return await source.token(videoId);
    } catch (err) {
      // Particular to this request, not to the client: the chain's order stays.
      if (err instanceof AppError) throw new NextClient(err, false);
      throw err;
    }
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
        chapters: chaptersFromNext(page.initialData),
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
          headers: { ...BASE_HEADERS, cookie, 'user-agent': this.innertube.client('WEB').userAgent },
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

  /**
   * A timedtext body ('' when the platform answered an empty one). `accountCookies`: whether the
   * client whose answer signed the URL takes the operator's cookies. `visitorData`: the visitor a
   * PO token in the URL was minted for.
   */
  async timedtext(url: string, accountCookies = true, visitorData: string | null = null): Promise<string> {
    const res = await this.deps.upstreams.fetch('youtube', url, {
      headers: {
        ...BASE_HEADERS,
        'user-agent': this.innertube.client('WEB').userAgent,
        ...(visitorData && { 'x-goog-visitor-id': visitorData }),
      },
      accountCookies,
      maxRedirects: 0,
      blocked: isCaptionBlock,
    });
    if (res.status !== 200) {
      throw new AppError('upstream_error', `youtube timedtext answered HTTP ${res.status}`);
    }
    return res.body.toString('utf8');
  }
}
