// X as our code sees it: a post by id, from the web GraphQL with a guest token when a web
// bearer token is configured (UNFURL_X_BEARER_TOKEN: every stat), else — or when that path fails —
// from the public syndication answer. All hosts (api.x.com, x.com, cdn.syndication.twimg.com) go
// through the `x` upstream; parsed answers are cached.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import { chooseTrack, languagesOf } from '../caption-choice.js';
import { parseCaptionFile } from '../caption-files.js';
import type { NativeTranscript } from '../transcript.js';
import { isXBlocked } from './blocks.js';
import { segmentUrls, subtitleRenditions } from './hls.js';
import { type ParsedPost, parseGraphqlPost, parseSyndicationPost, syndicationToken } from './post.js';

export interface XClientDeps {
  upstreams: Upstreams;
  cache: ResultCache;
  ttlMs: number;
  bearerToken: string | null;
}

/** The web client's TweetResultByRestId operation (its id rotates now and then). */
export const TWEET_RESULT_QUERY = '2ICDjqPd81tulZcYrtpTuQ';
const GUEST_TTL_MS = 30 * 60_000;

const FEATURES = {
  creator_subscriptions_tweet_preview_api_enabled: true,
  communities_web_enable_tweet_community_results_fetch: true,
  c9s_tweet_anatomy_moderator_badge_enabled: true,
  articles_preview_enabled: true,
  tweetypie_unmention_optimization_enabled: true,
  responsive_web_edit_tweet_api_enabled: true,
  graphql_is_translatable_rweb_tweet_is_translatable_enabled: true,
  view_counts_everywhere_api_enabled: true,
  longform_notetweets_consumption_enabled: true,
  responsive_web_twitter_article_tweet_consumption_enabled: true,
  tweet_awards_web_tipping_enabled: false,
  freedom_of_speech_not_reach_fetch_enabled: true,
  standardized_nudges_misinfo: true,
  tweet_with_visibility_results_prefer_gql_limited_actions_policy_enabled: true,
  rweb_video_timestamps_enabled: true,
  longform_notetweets_rich_text_read_enabled: true,
  longform_notetweets_inline_media_enabled: true,
  responsive_web_graphql_exclude_directive_enabled: true,
  verified_phone_label_enabled: false,
  responsive_web_graphql_skip_user_profile_image_extensions_enabled: false,
  responsive_web_graphql_timeline_navigation_enabled: true,
  responsive_web_enhance_cards_enabled: false,
};

export class XClient {
  constructor(private readonly deps: XClientDeps) {}

  /** The post, or why it is unavailable (cached per id). */
  post(id: string, signal?: AbortSignal): Promise<ParsedPost> {
    return cached(this.deps.cache, `x:post:${id}`, this.deps.ttlMs, async () => {
      if (this.deps.bearerToken) {
        const viaGraphql = await this.graphql(id, this.deps.bearerToken, signal).catch((err: unknown) => {
          if (signal?.aborted) throw err;
          return null; // rate-limited or changed: the syndication answer still has most fields
        });
        if (viaGraphql) return viaGraphql;
      }
      return this.syndication(id, signal);
    });
  }

  private guestToken(bearer: string, signal?: AbortSignal): Promise<string> {
    return cached(this.deps.cache, 'x:guest-token', GUEST_TTL_MS, async () => {
      const res = await this.deps.upstreams.fetch('x', 'https://api.x.com/1.1/guest/activate.json', {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}` },
        maxRedirects: 0,
        signal,
        attempts: 1,
        blocked: isXBlocked,
      });
      const token =
        res.status === 200
          ? (JSON.parse(res.body.toString('utf8')) as { guest_token?: unknown }).guest_token
          : null;
      if (typeof token !== 'string' || !token) {
        throw new AppError('upstream_error', `x refused a guest token (HTTP ${res.status})`);
      }
      return token;
    });
  }

  private async graphql(id: string, bearer: string, signal?: AbortSignal): Promise<ParsedPost> {
    const guest = await this.guestToken(bearer, signal);
    const query = new URLSearchParams({
      variables: JSON.stringify({
        tweetId: id,
        withCommunity: false,
        includePromotedContent: false,
        withVoice: false,
      }),
      features: JSON.stringify(FEATURES),
      fieldToggles: JSON.stringify({ withArticleRichContentState: false }),
    });
    const res = await this.deps.upstreams.fetch(
      'x',
      `https://x.com/i/api/graphql/${TWEET_RESULT_QUERY}/TweetResultByRestId?${query}`,
      {
        headers: { authorization: `Bearer ${bearer}`, 'x-guest-token': guest },
        maxRedirects: 0,
        signal,
        attempts: 1,
        blocked: isXBlocked,
      },
    );
    if (res.status !== 200) throw new AppError('upstream_error', `x GraphQL answered HTTP ${res.status}`);
    return parseGraphqlPost(JSON.parse(res.body.toString('utf8')));
  }

  private async syndication(id: string, signal?: AbortSignal): Promise<ParsedPost> {
    const url = `https://cdn.syndication.twimg.com/tweet-result?id=${id}&lang=en&token=${syndicationToken(id)}`;
    const res = await this.deps.upstreams.fetch('x', url, {
      headers: { 'user-agent': 'Googlebot', accept: 'application/json' },
      maxRedirects: 0,
      signal,
      blocked: isXBlocked,
    });
    if (res.status === 404) return { kind: 'unavailable', reason: 'no such post' };
    if (res.status !== 200) throw new AppError('upstream_error', `x syndication answered HTTP ${res.status}`);
    let json: unknown;
    try {
      json = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new AppError('upstream_error', 'x syndication answered something that is not JSON');
    }
    return parseSyndicationPost(json);
  }

  /** A text body of the video CDN ('' when it answers anything but 200). */
  private async text(url: string, signal?: AbortSignal): Promise<string> {
    const res = await this.deps.upstreams.fetch('x', url, {
      signal,
      maxBytes: 4 * 1024 * 1024,
      blocked: isXBlocked,
    });
    return res.status === 200 ? res.body.toString('utf8') : '';
  }

  /** The uploaded captions of an HLS video in the preferred language; null when it has none. */
  async hlsCaptions(
    masterUrl: string,
    lang: string | null,
    signal?: AbortSignal,
  ): Promise<NativeTranscript | null> {
    const renditions = subtitleRenditions(await this.text(masterUrl, signal), masterUrl).map((r) => ({
      ...r,
      auto: false,
      original: r.isDefault,
    }));
    const remaining = [...renditions];
    while (remaining.length) {
      const track = chooseTrack(remaining, lang)!;
      remaining.splice(remaining.indexOf(track), 1);
      const segments = segmentUrls(await this.text(track.url, signal), track.url);
      const bodies: string[] = [];
      for (const segment of segments) bodies.push(await this.text(segment, signal));
      const cues = parseCaptionFile(bodies.join('\n\n'));
      if (cues.length) return { cues, lang: track.lang, availableLangs: languagesOf(renditions) };
    }
    return null;
  }
}
