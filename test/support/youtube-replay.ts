// A loopback stand-in for the video-sharing platform that replays the real captures of
// ../shared/fixtures/youtube/: /youtubei/v1/player answers per video and client, timedtext bodies,
// watch pages (with the EU consent interstitial on demand), /next (a watch page's data, or comment
// pages by continuation token), /browse (channel tabs by id and params, playlists by VL id, browse
// continuations by token), navigation/resolve_url (handles and legacy URLs) and /search (by query,
// continuations by token; the captured answers of test/fixtures-captured/youtube-search). Where no
// capture exists (2024+ layouts, comment answers) the constructed fixtures of
// test/fixtures-constructed stand in. Tests point UNFURL_UPSTREAM_YOUTUBE at it. On demand it refuses
// timedtext (429) and serves a media file at the players' stream URLs. Also a "blocked exit": the bot
// check and the reCAPTCHA page.
//
// A caption URL the platform marked as needing a proof-of-origin token (exp=xpe or xpv) answers an
// empty body, as the platform does, unless it carries a `pot` the option `poToken` accepts.
//
// Player answers are chosen per video and per client (the context's clientName). A client the
// platform does not know, or one this stand-in has no capture for (the video lists other clients and
// no '*'), is answered HTTP 400 INVALID_ARGUMENT, as the platform answers a client it does not take —
// never with another client's answer made up. A signed-in gate (option `signedIn`) answers the
// captured age-restricted LOGIN_REQUIRED until the request carries a given cookie.
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { commentsContinuationToken } from '../../src/sources/youtube/comments.parse.js';
import { CHANNEL_TABS } from '../../src/sources/youtube/listings.js';
import { type Loopback, startServer } from './loopback.js';
import {
  CAPTURES as CAPTURE_DIR,
  capturedSearch,
  captureInitialData,
  constructed,
} from './youtube-captures.js';

const files = new Map<string, Buffer>();
/** A capture's bytes (read once per process). */
export function youtubeFixture(name: string): Buffer {
  let body = files.get(name);
  if (!body) {
    body = fs.readFileSync(path.join(CAPTURE_DIR, name));
    files.set(name, body);
  }
  return body;
}
export const youtubeJson = (name: string): unknown => JSON.parse(youtubeFixture(name).toString('utf8'));
export const youtubeText = (name: string): string => youtubeFixture(name).toString('utf8');

const YTA = 'youtube-transcript-api';
export const CAPTURES = {
  playerOk: `${YTA}/youtube.innertube.json.static`,
  /** A second ANDROID capture of the same video (other user agent): stands in for the fallback client. */
  playerOkAgain: `${YTA}/youtube_altered_user_agent.innertube.json.static`,
  playerPoToken: `${YTA}/youtube_po_token_required.innertube.json.static`,
  playerAge: `${YTA}/youtube_age_restricted.innertube.json.static`,
  playerNoCaptions: `${YTA}/youtube_transcripts_disabled.innertube.json.static`,
  playerBotCheck: `${YTA}/youtube_request_blocked.innertube.json.static`,
  playerUnavailable: `${YTA}/youtube_video_unavailable.innertube.json.static`,
  transcriptXml: `${YTA}/transcript.xml.static`,
  watchPage: `${YTA}/youtube.html.static`,
  consentPage: `${YTA}/youtube_consent_page.html.static`,
  recaptchaPage: `${YTA}/youtube_too_many_requests.html.static`,
} as const;

/**
 * The player clients the platform takes (their clientName), as the maintained open-source clients
 * list them in 2026. Any other name is answered HTTP 400 INVALID_ARGUMENT.
 */
export const PLATFORM_CLIENT_NAMES: ReadonlySet<string> = new Set([
  'WEB',
  'MWEB',
  'WEB_EMBEDDED_PLAYER',
  'WEB_REMIX',
  'WEB_CREATOR',
  'WEB_KIDS',
  'ANDROID',
  'ANDROID_VR',
  'ANDROID_MUSIC',
  'ANDROID_CREATOR',
  'IOS',
  'VISIONOS',
  'TVHTML5',
  'TVHTML5_SIMPLY',
  'TVHTML5_SIMPLY_EMBEDDED_PLAYER',
]);

/**
 * videoId → player capture per client ('*' = any client the platform takes). Unknown ids answer
 * "unavailable"; a client a video has no capture for answers HTTP 400.
 */
export const DEFAULT_PLAYERS: Record<string, Record<string, string>> = {
  GJLlxj_dtq8: { ANDROID: CAPTURES.playerOk, IOS: CAPTURES.playerOkAgain, '*': CAPTURES.playerOk },
  Njp5uhTorCo: { '*': CAPTURES.playerAge },
  dsMFmonKDD4: { '*': CAPTURES.playerNoCaptions },
  '2lAe1cqCOXo': { '*': 'pytube/2lAe1cqCOXo.player.json' },
  WXxV9g7lsFE: { '*': 'pytube/WXxV9g7lsFE.player.json' },
  '5YceQ8YqYMc': { '*': 'pytube/5YceQ8YqYMc.player.json' },
  irauhITDrsE: { '*': 'pytube/irauhITDrsE.player.json' },
  m8uHb5jIGN8: { '*': 'pytube/m8uHb5jIGN8.player.json' },
};

/** videoId → watch-page capture. Unknown ids answer 404. */
export const DEFAULT_WATCH: Record<string, string> = {
  GJLlxj_dtq8: CAPTURES.watchPage,
  '2lAe1cqCOXo': 'pytube/2lAe1cqCOXo.watch.html',
  WXxV9g7lsFE: 'pytube/WXxV9g7lsFE.watch.html',
  '5YceQ8YqYMc': 'pytube/5YceQ8YqYMc.watch.html',
  irauhITDrsE: 'pytube/irauhITDrsE.watch.html',
  m8uHb5jIGN8: 'pytube/m8uHb5jIGN8.watch.html',
  _HSylqgVYQI: 'node-ytdl-core/regular.watch.html',
  LuZu9N53Vd0: 'node-ytdl-core/age-restricted.watch.html',
  '5qap5aO4i9A': 'node-ytdl-core/live-now.watch.html',
  TceijYjxdrQ: 'node-ytdl-core/longest-upload.watch.html',
};

/** The constructed channel of test/fixtures-constructed/youtube (2024+ layout). */
export const CONSTRUCTED_CHANNEL = 'UCc0nstructedChannel0001';
const ABOUT_TOKEN =
  '4qmFsgKrCBIYVUNjMG5zdHJ1Y3RlZENoYW5uZWwwMDAxGo4IOGdZckdpbDZKd29sTUdaak9EZGhZek10TURBd01DMHlZVFE1TFdKak5EY3RNRFU1TkRreU9HWmlNVEV5RUFBJTNE';

/**
 * Browse and search answers, named as `<capture path>` (an HTML capture answers its ytInitialData, a
 * JSON one itself), `constructed/<file>`, `captured-search/<file>`, or END: an answer with nothing in
 * it (the end of a list).
 */
export const END = 'END';
/** An answer name for HTTP 404 NOT_FOUND, as browse and resolve_url answer for some missing things. */
export const HTTP_404 = 'HTTP_404';

/**
 * channelId → the answer per tab asked ('' = no params: the home tab; 'videos', 'shorts', 'streams'
 * by CHANNEL_TABS params; '*' = any tab no capture shows — the platform answers a tab a channel
 * lacks with another tab, and so does the stand-in). Unknown UC ids answer the ERROR alert
 * "This channel does not exist.".
 */
export const DEFAULT_CHANNELS: Record<string, Record<string, string>> = {
  UCs6nmQViDpUw0nuIx9c_WvA: { '*': 'pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html' },
  UCoLrcjPV5PbUrUyXq5mjc_A: { '*': 'pytube/channel-UCoLrcjPV5PbUrUyXq5mjc_A-shorts.html' },
  // 2020, before shorts and live tabs: every tab asked is answered with the home tab.
  UCqwGaUvq_l0RKszeHhZ5leA: { '*': 'node-ytpl/userPage.html' },
  [CONSTRUCTED_CHANNEL]: {
    '': 'constructed/channel-2024-videos.json',
    videos: 'constructed/channel-2024-videos.json',
    shorts: 'constructed/channel-2024-shorts.json',
    streams: 'constructed/channel-2024-streams.json',
  },
};

/** playlistId → its first page. Unknown ids answer the captured "The playlist does not exist." page. */
export const DEFAULT_PLAYLISTS: Record<string, string> = {
  'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr': 'pytube/playlist-PLzMcBGfZo4-mP7qA9cagf68V06sko5otr.html',
  'PLS1QulWo1RIaJECMeUT4LFwJ-ghgoSH6n': 'pytube/playlist-PLS1QulWo1RIaJECMeUT4LFwJ-ghgoSH6n.html',
  'UU_aEa8K-EOJ3D6gOs7HcyNg': 'node-ytpl/firstpage_01.html',
  'PLRBp0Fe2GpgnIh0AiYKh7o7HnYAej-5ph': 'node-ytpl/firstpage_02.html',
  'PLGzC4gTcebz_DtErBUKNdZZdPwkb5e-pr': 'node-ytpl/firstpage_04.html',
  // The landing page the platform served for some unknown ids.
  PLlandingPageServedForThisId: 'node-ytpl/landingPage.html',
};

/**
 * Browse continuation token → its answer. Unknown tokens answer HTTP 400 INVALID_ARGUMENT, as the
 * platform does for a token it does not take.
 */
export const DEFAULT_BROWSE_CONTINUATIONS: Record<string, string> = {
  // node-ytpl captured firstpage_01 (scrubbed token) and this continuation of it.
  '<firstContinuationToken>': 'node-ytpl/secondpage_01.html',
  '<secondContinuationToken>': END,
  '4qmFsgKconstructedVideosPage2': 'constructed/channel-2024-videos-continuation.json',
  '4qmFsgKconstructedShortsPage2': END,
  [ABOUT_TOKEN]: 'constructed/channel-2024-about.json',
};

/** A video whose comments are the constructed 2024+ answers ("constructed" is 11 characters). */
export const COMMENTED_VIDEO = 'constructed';
/** A video whose comments are the constructed legacy answer (a real id, made-up comments). */
export const LEGACY_COMMENTED_VIDEO = 'GJLlxj_dtq8';
const TOP = commentsContinuationToken(COMMENTED_VIDEO, 'top');

/** /next continuation token → comment answer. Unknown tokens answer no comment section at all. */
export const DEFAULT_NEXT_CONTINUATIONS: Record<string, string> = {
  [TOP]: 'constructed/comments-2024-first.json',
  [`${TOP}-top`]: 'constructed/comments-2024-first.json',
  [`${commentsContinuationToken(COMMENTED_VIDEO, 'newest')}-newest`]: 'constructed/comments-2024-newest.json',
  Eg0SC2NvbnN0cnVjdGVkGAYyConstructedCommentsPage2: 'constructed/comments-2024-next.json',
  [commentsContinuationToken(LEGACY_COMMENTED_VIDEO, 'top')]: 'constructed/comments-legacy.json',
  LegacyConstructedCommentsPage2: END,
};

/** The constructed 2024+ search (test/fixtures-constructed/youtube/search-2024-*.json). */
export const CONSTRUCTED_QUERY = 'constructed search';
/** The query of the captured 2020 results page. */
export const CAPTURED_QUERY = 'test';

/**
 * /search: query → first answer (whatever the filters; tests read the `params` sent). Unknown
 * queries answer a page with no results, as the platform does.
 */
export const DEFAULT_SEARCHES: Record<string, string> = {
  [CAPTURED_QUERY]: 'captured-search/firstpage_01.html.static',
  [CONSTRUCTED_QUERY]: 'constructed/search-2024-first.json',
};

/**
 * /search continuation token → its answer; unknown tokens answer HTTP 400 INVALID_ARGUMENT. The
 * captured chain: the results page → a continuation of it → a rich-grid continuation (of another
 * search, standing in for a third page) whose token repeats the second's, ending the walk.
 */
export const DEFAULT_SEARCH_CONTINUATIONS: Record<string, string> = {
  '<firstContinuationToken>': 'captured-search/secondpage_01.html.static',
  '<secondContinuationToken>': 'captured-search/secondpage_02.html.static',
  EpcDconstructedSearchPage2: 'constructed/search-2024-next.json',
};

// Made up in the form the platform answers a search that matches nothing.
const NO_RESULTS_JSON = JSON.stringify({
  responseContext: {},
  estimatedResults: '0',
  contents: {
    twoColumnSearchResultsRenderer: {
      primaryContents: {
        sectionListRenderer: {
          contents: [
            {
              itemSectionRenderer: {
                contents: [{ backgroundPromoRenderer: { title: { runs: [{ text: 'No results found' }] } } }],
              },
            },
          ],
        },
      },
    },
  },
});

/** resolve_url: a channel URL's path (lower-cased) → its UC id. Unknown paths answer HTTP 404. */
export const DEFAULT_RESOLVE: Record<string, string> = {
  '/@programmingknowledge': 'UCs6nmQViDpUw0nuIx9c_WvA',
  '/@mlb': 'UCoLrcjPV5PbUrUyXq5mjc_A',
  '/@constructedchannel': CONSTRUCTED_CHANNEL,
  '/c/pietsmiet': 'UCqwGaUvq_l0RKszeHhZ5leA',
  '/user/pietsmiet': 'UCqwGaUvq_l0RKszeHhZ5leA',
  '/pietsmiet': 'UCqwGaUvq_l0RKszeHhZ5leA',
};

const NOT_FOUND_JSON =
  '{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}';
const INVALID_JSON =
  '{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}';
// Made up in the form the platform answers a browse of an id no channel has.
const NO_CHANNEL_JSON = JSON.stringify({
  responseContext: {},
  alerts: [{ alertRenderer: { type: 'ERROR', text: { simpleText: 'This channel does not exist.' } } }],
});

/** The JSON an answer name stands for (see END). */
function browseAnswer(name: string): string | Buffer {
  if (name === END) return '{"responseContext":{}}';
  if (name.startsWith('constructed/')) return JSON.stringify(constructed(name.slice('constructed/'.length)));
  if (name.startsWith('captured-search/')) {
    return JSON.stringify(capturedSearch(name.slice('captured-search/'.length)));
  }
  const body = youtubeFixture(name);
  return body.toString('utf8', 0, 64).trimStart().startsWith('<')
    ? JSON.stringify(captureInitialData(name))
    : body;
}

/** The distinct video ids anywhere inside a value. */
function videoIdsIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) videoIdsIn(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'videoId' && typeof v === 'string') into.add(v);
      else videoIdsIn(v, into);
    }
  }
  return into;
}

/**
 * A listing as it was before some of its videos were published: every list item that is about one
 * of `hidden` alone (its renderer, thumbnails and links name no other video) is left out.
 */
export function withoutVideos(value: unknown, hidden: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) {
    return value
      .filter((item) => {
        const ids = videoIdsIn(item);
        return !(ids.size === 1 && hidden.has([...ids][0]!));
      })
      .map((item) => withoutVideos(item, hidden));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutVideos(v, hidden)]));
  }
  return value;
}

/** Listings without some videos, kept per answer and set of ids (monitors ask for the same ones often). */
const trimmed = new Map<string, string>();
function listingWithout(name: string, hidden: ReadonlySet<string>): string {
  const key = `${name}\n${[...hidden].sort().join(',')}`;
  let body = trimmed.get(key);
  if (body === undefined) {
    body = JSON.stringify(withoutVideos(JSON.parse(browseAnswer(name).toString()) as unknown, hidden));
    if (trimmed.size > 200) trimmed.clear();
    trimmed.set(key, body);
  }
  return body;
}

/** Which tab browse params ask for ('' for none), or the params themselves when unknown. */
function tabOf(params: string | undefined): string {
  if (!params) return '';
  const decoded = decodeURIComponent(params);
  return Object.values(CHANNEL_TABS).find((t) => t.params === decoded)?.suffix ?? decoded;
}

export interface ReplayRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** /youtubei/v1/*: the client named in the body's context. */
  client?: string;
  videoId?: string;
  /** /youtubei/v1/*: the request body. */
  body?: Record<string, unknown>;
}

/** A video behind the platform's sign-in: its age gate until the request carries `cookie`. */
export interface SignedInGate {
  /** `name=value`, looked for in the request's Cookie header. */
  cookie: string;
  /** The player capture answered to a request that carries it. */
  player: string;
}

export interface YouTubeReplayOptions {
  /** Read at each request (as `watch` is): a test may add a video's answers after the start. */
  players?: Record<string, Record<string, string>>;
  /**
   * videoId → a sign-in gate: /player answers the captured age-restricted LOGIN_REQUIRED to any client
   * until a request carries the cookie, then the gate's player capture.
   */
  signedIn?: Record<string, SignedInGate>;
  watch?: Record<string, string>;
  /** A timedtext body for a request; undefined → the transcript.xml capture, '' → an empty body. */
  timedtext?(query: URLSearchParams): string | undefined;
  /**
   * Whether a timedtext URL gated behind a PO token (exp=xpe/xpv) is answered for this `pot` (the
   * query is the whole request's). Unset: no token is accepted, every gated URL answers empty.
   */
  poToken?(pot: string, query: URLSearchParams): boolean;
  /** The status every timedtext request is answered with (429: the platform refuses captions). */
  timedtextStatus?: number;
  /** A media file served for every /videoplayback URL (the players' stream URLs, resolved here). */
  media?: Buffer;
  /** Serve the consent page at /watch until the cookie CONSENT=YES+<its v value> comes. */
  consent?: boolean;
  channels?: Record<string, Record<string, string>>;
  playlists?: Record<string, string>;
  browseContinuations?: Record<string, string>;
  nextContinuations?: Record<string, string>;
  resolve?: Record<string, string>;
  searches?: Record<string, string>;
  searchContinuations?: Record<string, string>;
  /**
   * Videos not published yet: browse answers (channel tabs, playlists) leave them out while they
   * are in the set. A test deletes an id to have the channel or playlist gain that video.
   */
  hiddenVideos?: Set<string>;
}

export interface YouTubeReplay extends Loopback {
  requests: ReplayRequest[];
  count(pathname: string): number;
}

const CONSENT_V = /name="v" value="([^"]+)"/.exec(youtubeText(CAPTURES.consentPage))?.[1] ?? '';

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** The ytInitialData of a watch capture: what /next answers for that video (the same shape). */
function initialData(html: string): string | null {
  const start = html.indexOf('var ytInitialData = ');
  if (start < 0) return null;
  const from = start + 'var ytInitialData = '.length;
  const end = html.indexOf(';</script>', from);
  return end < 0 ? null : html.slice(from, end);
}

export async function startYouTubeReplay(options: YouTubeReplayOptions = {}): Promise<YouTubeReplay> {
  const players = { ...DEFAULT_PLAYERS, ...options.players };
  const watch = { ...DEFAULT_WATCH, ...options.watch };
  const channels = { ...DEFAULT_CHANNELS, ...options.channels };
  const playlists = { ...DEFAULT_PLAYLISTS, ...options.playlists };
  const browseContinuations = { ...DEFAULT_BROWSE_CONTINUATIONS, ...options.browseContinuations };
  const nextContinuations = { ...DEFAULT_NEXT_CONTINUATIONS, ...options.nextContinuations };
  const resolve = { ...DEFAULT_RESOLVE, ...options.resolve };
  const searches = { ...DEFAULT_SEARCHES, ...options.searches };
  const searchContinuations = { ...DEFAULT_SEARCH_CONTINUATIONS, ...options.searchContinuations };
  const requests: ReplayRequest[] = [];
  const server = await startServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://replay');
    const entry: ReplayRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    };
    requests.push(entry);
    const send = (status: number, type: string, body: string | Buffer) =>
      res.writeHead(status, { 'content-type': type }).end(body);
    if (req.method === 'POST' && url.pathname.startsWith('/youtubei/v1/')) {
      const body = JSON.parse((await readBody(req)) || '{}') as {
        videoId?: string;
        browseId?: string;
        params?: string;
        continuation?: string;
        url?: string;
        query?: string;
        context?: { client?: { clientName?: string } };
      };
      entry.client = body.context?.client?.clientName;
      entry.videoId = body.videoId;
      entry.body = body;
      const json = (status: number, answer: string | Buffer) => send(status, 'application/json', answer);
      if (url.pathname === '/youtubei/v1/player') {
        if (!PLATFORM_CLIENT_NAMES.has(entry.client ?? '')) return json(400, INVALID_JSON);
        const gate = options.signedIn?.[body.videoId ?? ''];
        if (gate) {
          const cookies = (req.headers.cookie ?? '').split(';').map((c) => c.trim());
          return json(200, youtubeFixture(cookies.includes(gate.cookie) ? gate.player : CAPTURES.playerAge));
        }
        const byClient = options.players?.[body.videoId ?? ''] ?? players[body.videoId ?? ''];
        if (!byClient) return json(200, youtubeFixture(CAPTURES.playerUnavailable));
        const file = byClient[entry.client ?? ''] ?? byClient['*'];
        return file ? json(200, youtubeFixture(file)) : json(400, INVALID_JSON);
      }
      if (url.pathname === '/youtubei/v1/browse') {
        if (body.continuation !== undefined) {
          const name = browseContinuations[body.continuation];
          return name ? json(200, browseAnswer(name)) : json(400, INVALID_JSON);
        }
        const id = body.browseId ?? '';
        if (id.startsWith('VL')) {
          const name = playlists[id.slice(2)] ?? 'node-ytpl/notexistspage.html';
          return name === HTTP_404 ? json(404, NOT_FOUND_JSON) : json(200, browseAnswer(name));
        }
        const tabs = channels[id];
        if (!tabs) return /^UC[\w-]{22}$/.test(id) ? json(200, NO_CHANNEL_JSON) : json(400, INVALID_JSON);
        const name = tabs[tabOf(body.params)] ?? tabs['*'] ?? tabs[''];
        if (name && options.hiddenVideos?.size) return json(200, listingWithout(name, options.hiddenVideos));
        if (name === HTTP_404) return json(404, NOT_FOUND_JSON);
        return name ? json(200, browseAnswer(name)) : json(400, INVALID_JSON);
      }
      if (url.pathname === '/youtubei/v1/search') {
        if (body.continuation !== undefined) {
          const name = searchContinuations[body.continuation];
          return name ? json(200, browseAnswer(name)) : json(400, INVALID_JSON);
        }
        const name = searches[body.query ?? ''];
        return json(200, name ? browseAnswer(name) : NO_RESULTS_JSON);
      }
      if (url.pathname === '/youtubei/v1/navigation/resolve_url') {
        const path = decodeURIComponent(new URL(body.url ?? '/', 'https://www.youtube.com').pathname);
        const id = resolve[path.toLowerCase()];
        if (!id) return json(404, NOT_FOUND_JSON);
        return json(
          200,
          JSON.stringify({
            responseContext: {},
            endpoint: {
              commandMetadata: {
                webCommandMetadata: { url: path, webPageType: 'WEB_PAGE_TYPE_CHANNEL', rootVe: 3611 },
              },
              browseEndpoint: { browseId: id, canonicalBaseUrl: path },
            },
          }),
        );
      }
      if (url.pathname === '/youtubei/v1/next' && body.continuation !== undefined) {
        return json(200, browseAnswer(nextContinuations[body.continuation] ?? END));
      }
      if (url.pathname === '/youtubei/v1/next') {
        const file = options.watch?.[body.videoId ?? ''] ?? watch[body.videoId ?? ''];
        const data = file ? initialData(youtubeText(file)) : null;
        return data ? send(200, 'application/json', data) : send(404, 'application/json', '{}');
      }
      return send(404, 'application/json', '{"error":{"code":404}}');
    }
    if (url.pathname === '/api/timedtext') {
      if (options.timedtextStatus && options.timedtextStatus !== 200) {
        return send(options.timedtextStatus, 'text/html', '<html><body>Too Many Requests</body></html>');
      }
      if (/xp[ev]/.test(url.searchParams.get('exp') ?? '')) {
        const pot = url.searchParams.get('pot');
        if (!pot || !options.poToken?.(pot, url.searchParams))
          return send(200, 'text/xml; charset=UTF-8', '');
      }
      const body = options.timedtext?.(url.searchParams);
      return send(200, 'text/xml; charset=UTF-8', body ?? youtubeFixture(CAPTURES.transcriptXml));
    }
    if (url.pathname === '/videoplayback' && options.media) {
      return send(200, 'video/mp4', options.media);
    }
    if (url.pathname === '/watch') {
      if (options.consent && !(req.headers.cookie ?? '').includes(`CONSENT=YES+${CONSENT_V}`)) {
        return send(200, 'text/html; charset=utf-8', youtubeFixture(CAPTURES.consentPage));
      }
      const file = options.watch?.[url.searchParams.get('v') ?? ''] ?? watch[url.searchParams.get('v') ?? ''];
      return file
        ? send(200, 'text/html; charset=utf-8', youtubeFixture(file))
        : send(404, 'text/html', '<html><body>404</body></html>');
    }
    send(404, 'text/plain', 'not found');
  });
  return {
    ...server,
    requests,
    count: (pathname) => requests.filter((r) => r.path === pathname).length,
  };
}

/** An exit the platform has blocked: the bot check for innertube calls, the reCAPTCHA page otherwise. */
export async function startBlockedYouTube(): Promise<YouTubeReplay> {
  const requests: ReplayRequest[] = [];
  const server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://blocked');
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    });
    req.resume();
    if (url.pathname.startsWith('/youtubei/')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(youtubeFixture(CAPTURES.playerBotCheck));
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end(youtubeFixture(CAPTURES.recaptchaPage));
    }
  });
  return { ...server, requests, count: (p) => requests.filter((r) => r.path === p).length };
}
