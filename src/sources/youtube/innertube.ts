// The platform's internal JSON API ("innertube"): POST https://www.youtube.com/youtubei/v1/<endpoint>
// with a client context. Mobile clients come first for the player: their caption URLs work without
// a proof-of-origin token, which the web client's need since mid-2025 (research/transcripts.md §0.7).
// Every call goes through Upstreams: base-URL override, proxy rotation, retries on 429/5xx and blocks.
import { AppError, invalid } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import { CONSENT_COOKIE, isBlocked } from './blocks.js';
import { pickMembers } from './json-pick.js';

export const ORIGIN = 'https://www.youtube.com';

export type ClientName = 'ANDROID' | 'IOS' | 'WEB';

interface ClientProfile {
  /** The numeric id sent as X-YouTube-Client-Name. */
  id: number;
  version: string;
  userAgent: string;
  /** Extra fields of context.client (device description). */
  context: Record<string, unknown>;
}

// Versions as used by the maintained tools in the research snapshots (2025–26); the platform refuses
// clients that are too old, so these are bumped when that happens.
export const CLIENTS: Readonly<Record<ClientName, ClientProfile>> = {
  ANDROID: {
    id: 3,
    version: '20.10.38',
    userAgent: 'com.google.android.youtube/20.10.38 (Linux; U; Android 14) gzip',
    context: { osName: 'Android', osVersion: '14', androidSdkVersion: 34 },
  },
  IOS: {
    id: 5,
    version: '20.11.6',
    userAgent: 'com.google.ios.youtube/20.11.6 (iPhone16,2; U; CPU iOS 18_3_2 like Mac OS X;)',
    context: { deviceMake: 'Apple', deviceModel: 'iPhone16,2', osName: 'iPhone', osVersion: '18.3.2.22D82' },
  },
  WEB: {
    id: 1,
    version: '2.20260623.01.00',
    userAgent:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/137.0.0.0 Safari/537.36',
    context: {},
  },
};

/** Headers every request to the platform carries: English answers, consent already given. */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  'accept-language': 'en-US,en;q=0.9',
  cookie: CONSENT_COOKIE,
};

export interface InnertubeCallOptions {
  client?: ClientName;
  signal?: AbortSignal;
  /**
   * The message of a 404 `not_found` when the platform answers HTTP 404 (browse and resolve_url do
   * for things that do not exist). Unset: a 404 is an `upstream_error` like any other status.
   */
  notFound?: string;
  /**
   * The caller's parameter a 400 answer is about (a continuation token the caller handed us that the
   * platform does not take). Unset: a 400 is an `upstream_error` like any other status.
   */
  invalidParam?: string;
  /**
   * Read only these top-level members of the answer (a player answer is ~200 KB of which the
   * parsers use a few KB); the rest is never decoded. Unset: the whole answer.
   */
  members?: readonly string[];
}

export class Innertube {
  constructor(private readonly upstreams: Upstreams) {}

  /** The JSON answer of one endpoint (`player`, `next`, `browse`, …); `body` is merged with the context. */
  async call(
    endpoint: string,
    body: Record<string, unknown>,
    options: InnertubeCallOptions = {},
  ): Promise<Record<string, unknown>> {
    const name = options.client ?? 'WEB';
    const client = CLIENTS[name];
    const payload = {
      context: {
        client: { clientName: name, clientVersion: client.version, hl: 'en', gl: 'US', ...client.context },
      },
      ...body,
    };
    const res = await this.upstreams.fetch('youtube', `${ORIGIN}/youtubei/v1/${endpoint}?prettyPrint=false`, {
      method: 'POST',
      headers: {
        ...BASE_HEADERS,
        'content-type': 'application/json',
        'user-agent': client.userAgent,
        origin: ORIGIN,
        'x-youtube-client-name': String(client.id),
        'x-youtube-client-version': client.version,
      },
      body: JSON.stringify(payload),
      // A redirect here is a block (google.com/sorry) or a consent hop: never followed off-platform.
      maxRedirects: 0,
      signal: options.signal,
      blocked: isBlocked,
    });
    if (res.status === 404 && options.notFound) throw new AppError('not_found', options.notFound);
    if (res.status === 400 && options.invalidParam) {
      throw invalid(options.invalidParam, 'the platform did not take it (expired or not one of ours)');
    }
    if (res.status < 200 || res.status >= 300) {
      throw new AppError('upstream_error', `youtube ${endpoint} answered HTTP ${res.status}`);
    }
    // Where the scan is not sure of the body, the full parse below decides (and refuses non-JSON).
    const picked = options.members ? pickMembers(res.body, options.members) : null;
    if (picked) return picked;
    try {
      const json = JSON.parse(res.body.toString('utf8')) as unknown;
      if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
    } catch {
      // fall through
    }
    throw new AppError('upstream_error', `youtube ${endpoint} answered something other than JSON`);
  }
}
