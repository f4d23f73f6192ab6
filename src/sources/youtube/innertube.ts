// The platform's internal JSON API ("innertube"): POST https://www.youtube.com/youtubei/v1/<endpoint>
// with a client context. Who we say we are is one entry of the client table (client-table.ts): the
// player chain prefers clients whose caption URLs work without a proof-of-origin token, because the
// desktop web client's captions and streams started demanding one in 2025 and answer empty without it.
// Every call goes through Upstreams: base-URL override, proxy rotation, retries on 429/5xx and blocks.
import { createHash } from 'node:crypto';
import { AppError, invalid } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import { CONSENT_COOKIE, isBlocked } from './blocks.js';
import { clientsByName, KNOWN_CLIENTS, type PlayerClient } from './client-table.js';
import { pickMembers } from './json-pick.js';

export const ORIGIN = 'https://www.youtube.com';

/** A client's name in the client table (ANDROID, IOS, WEB, TVHTML5, …, or one an operator added). */
export type ClientName = string;

/** The built-in clients by name (the operator's table may amend them: see Innertube's table). */
export const CLIENTS = KNOWN_CLIENTS;

/** A non-2xx answer of an endpoint; a 4xx to a player call is the platform not taking that client. */
export class InnertubeStatusError extends AppError {
  constructor(
    endpoint: string,
    readonly httpStatus: number,
  ) {
    super('upstream_error', `youtube ${endpoint} answered HTTP ${httpStatus}`);
  }
}

/**
 * The Authorization the platform wants beside account cookies on its API: a hash of the time, the
 * SAPISID cookie and the origin, proving the caller holds the cookie for that origin.
 */
export function sapisidHash(sapisid: string, origin: string, nowSec = Math.floor(Date.now() / 1000)): string {
  const digest = createHash('sha1').update(`${nowSec} ${sapisid} ${origin}`).digest('hex');
  return `SAPISIDHASH ${nowSec}_${digest}`;
}

/** Headers every request to the platform carries: English answers, consent already given. */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  'accept-language': 'en-US,en;q=0.9',
  cookie: CONSENT_COOKIE,
};

export interface InnertubeCallOptions {
  /** A name of the client table (default WEB). */
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
  /** The visitor a proof-of-origin token in the body was minted for (context and X-Goog-Visitor-Id). */
  visitorData?: string | null;
  /**
   * Read only these top-level members of the answer (a player answer is ~200 KB of which the
   * parsers use a few KB); the rest is never decoded. Unset: the whole answer.
   */
  members?: readonly string[];
}

export class Innertube {
  private readonly clients: ReadonlyMap<string, PlayerClient>;

  /** `chain`: the operator's player clients, which also amend the known ones of the same name. */
  constructor(
    private readonly upstreams: Upstreams,
    chain: readonly PlayerClient[] = [],
  ) {
    this.clients = clientsByName(chain);
  }

  /** A client of the table by name (internal_error for a name it does not have: our own mistake). */
  client(name: ClientName): PlayerClient {
    const client = this.clients.get(name);
    if (!client) throw new AppError('internal_error', `No youtube client named ${name}`);
    return client;
  }

  /** The JSON answer of one endpoint (`player`, `next`, `browse`, …); `body` is merged with the context. */
  async call(
    endpoint: string,
    body: Record<string, unknown>,
    options: InnertubeCallOptions = {},
  ): Promise<Record<string, unknown>> {
    const client = this.client(options.client ?? 'WEB');
    const url = `${ORIGIN}/youtubei/v1/${endpoint}?prettyPrint=false`;
    const payload = {
      context: {
        client: {
          clientName: client.clientName,
          clientVersion: client.version,
          hl: 'en',
          gl: 'US',
          ...client.context,
          ...(options.visitorData && { visitorData: options.visitorData }),
        },
        ...(client.thirdParty && { thirdParty: client.thirdParty }),
      },
      ...body,
    };
    // With account cookies the API also wants proof that we hold them (clients that take cookies only).
    // Some exports lack SAPISID but carry its third-party twin, which the platform accepts in its place.
    const sapisid = client.cookies
      ? (this.upstreams.accountCookie('youtube', url, 'SAPISID') ??
        this.upstreams.accountCookie('youtube', url, '__Secure-3PAPISID'))
      : null;
    const res = await this.upstreams.fetch('youtube', url, {
      method: 'POST',
      headers: {
        ...BASE_HEADERS,
        'content-type': 'application/json',
        'user-agent': client.userAgent,
        origin: ORIGIN,
        // The table's own headers (an API key, a referer, another origin for an embedded player).
        ...client.headers,
        'x-youtube-client-name': String(client.id),
        'x-youtube-client-version': client.version,
        ...(sapisid && { authorization: sapisidHash(sapisid, ORIGIN), 'x-origin': ORIGIN }),
        ...(options.visitorData && { 'x-goog-visitor-id': options.visitorData }),
      },
      body: JSON.stringify(payload),
      // A redirect here is a block (google.com/sorry) or a consent hop: never followed off-platform.
      maxRedirects: 0,
      signal: options.signal,
      blocked: isBlocked,
      accountCookies: client.cookies,
    });
    if (res.status === 404 && options.notFound) throw new AppError('not_found', options.notFound);
    if (res.status === 400 && options.invalidParam) {
      throw invalid(options.invalidParam, 'the platform did not take it (expired or not one of ours)');
    }
    if (res.status < 200 || res.status >= 300) throw new InnertubeStatusError(endpoint, res.status);
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
