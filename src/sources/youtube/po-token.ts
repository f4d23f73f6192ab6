// Proof-of-origin (PO) tokens: what the platform asks of a caption URL marked exp=xpe before it
// answers anything but an empty body. Two sources, both operator configuration:
//  - a static token (and the visitor data it was minted for), used for every video, or
//  - an operator-run provider speaking the bgutil HTTP protocol: POST <base>/get_pot with
//    {content_binding, bypass_cache}; it answers the token, the binding and when the token expires.
// Provider tokens are kept per content binding (the video id, for caption tokens) until shortly before
// they expire, and concurrent asks for one binding share a single call. A provider that is down,
// slow or answers nonsense is a 503 naming its setting, within the configured timeout.
//
// SSRF: the provider URL is operator configuration, never caller input, so a loopback or private
// address is allowed; no proxy is used and redirects are not followed (undici's request follows none).
import { request } from 'undici';
import { AppError } from '../../errors.js';

export const PROVIDER_SETTING = 'UNFURL_YOUTUBE_POT_PROVIDER_URL';
export const STATIC_SETTING = 'UNFURL_YOUTUBE_PO_TOKEN';

/** A token for one content binding. */
export interface PoToken {
  readonly token: string;
  /** The visitor data the token was minted for, when known (sent as X-Goog-Visitor-Id). */
  readonly visitorData: string | null;
}

/** Where PO tokens come from. */
export interface PoTokenSource {
  /** The setting that configures it (named in errors). */
  readonly setting: string;
  /** A token bound to `binding` (the video id for caption and player tokens). */
  token(binding: string): Promise<PoToken>;
}

/** The same token for every binding, as the operator configured it. */
export class StaticPoTokens implements PoTokenSource {
  readonly setting = STATIC_SETTING;
  private readonly value: PoToken;
  constructor(token: string, visitorData: string | null) {
    this.value = { token, visitorData };
  }
  token(): Promise<PoToken> {
    return Promise.resolve(this.value);
  }
}

/** What a provider answered, read: null when it is not a token answer. */
export interface ProviderAnswer {
  token: string;
  binding: string | null;
  /** ms since the epoch; null when the answer gives none. */
  expiresAt: number | null;
}

const pick = (o: Record<string, unknown>, ...names: string[]): unknown =>
  names.map((n) => o[n]).find((v) => v !== undefined && v !== null);

/** A time as the provider may write it: an ISO date, or seconds (or ms) since the epoch. */
function timeOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e11 ? value * 1000 : value;
  if (typeof value === 'string' && value.trim() !== '') {
    if (/^\d+(\.\d+)?$/.test(value.trim())) return timeOf(Number(value));
    const at = Date.parse(value);
    return Number.isNaN(at) ? null : at;
  }
  return null;
}

/**
 * Reads a provider's JSON answer. The protocol's request is snake_case; servers of the protocol have
 * answered in either case (po_token / poToken, expires_at / expiresAt), so both are read.
 */
export function parseProviderAnswer(body: unknown): ProviderAnswer | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const o = body as Record<string, unknown>;
  const token = pick(o, 'po_token', 'poToken');
  // Tokens are base64url text; anything else (an HTML page, an object) is not one.
  if (typeof token !== 'string' || !/^[\w\-=.%+/]{16,4096}$/.test(token)) return null;
  const binding = pick(o, 'content_binding', 'contentBinding');
  return {
    token,
    binding: typeof binding === 'string' ? binding : null,
    expiresAt: timeOf(pick(o, 'expires_at', 'expiresAt')),
  };
}

/** The caption URL with the token added, as the platform's own web player sends it. */
export function withPoToken(url: string, token: string, clientName: string): string {
  const u = new URL(url);
  u.searchParams.set('pot', token);
  u.searchParams.set('potc', '1');
  u.searchParams.set('c', clientName);
  return u.toString();
}

export interface ProviderSettings {
  /** One provider call, answer included. */
  timeoutMs: number;
  /** A token without an expiry is kept this long (the reference provider's default is 6 hours). */
  defaultLifetimeMs?: number;
  /** A token is dropped this long before it expires, so a URL is never sent with a stale one. */
  marginMs?: number;
  /** After a failed call, asks for the same binding fail at once for this long (a walk over clients asks once). */
  failureMemoryMs?: number;
  /** Most bindings kept. */
  maxEntries?: number;
  now?: () => number;
}

interface Kept {
  token: PoToken;
  until: number;
}

const MAX_ANSWER_BYTES = 64 * 1024;

/** An operator-run provider of the bgutil HTTP protocol. */
export class ProviderPoTokens implements PoTokenSource {
  readonly setting = PROVIDER_SETTING;
  private readonly endpoint: string;
  private readonly kept = new Map<string, Kept>();
  private readonly asking = new Map<string, Promise<PoToken>>();
  private readonly failed = new Map<string, { err: AppError; until: number }>();
  private readonly now: () => number;
  constructor(
    baseUrl: string,
    private readonly settings: ProviderSettings,
  ) {
    this.endpoint = `${baseUrl.replace(/\/+$/, '')}/get_pot`;
    this.now = settings.now ?? Date.now;
  }

  token(binding: string): Promise<PoToken> {
    const now = this.now();
    const kept = this.kept.get(binding);
    if (kept && kept.until > now) return Promise.resolve(kept.token);
    if (kept) this.kept.delete(binding);
    const failed = this.failed.get(binding);
    if (failed && failed.until > now) return Promise.reject(failed.err);
    let pending = this.asking.get(binding);
    if (!pending) {
      pending = this.ask(binding).finally(() => this.asking.delete(binding));
      this.asking.set(binding, pending);
    }
    return pending;
  }

  private unavailable(why: string): AppError {
    return new AppError(
      'provider_unavailable',
      `The PO token provider (${PROVIDER_SETTING}) ${why}; captions that need a proof-of-origin token cannot be fetched`,
    );
  }

  private async ask(binding: string): Promise<PoToken> {
    try {
      const answer = await this.call(binding);
      const lifetime = this.settings.defaultLifetimeMs ?? 6 * 3_600_000;
      const now = this.now();
      const until = (answer.expiresAt ?? now + lifetime) - (this.settings.marginMs ?? 60_000);
      const token: PoToken = { token: answer.token, visitorData: null };
      if (until > now) this.keep(binding, { token, until });
      this.failed.delete(binding);
      return token;
    } catch (err) {
      const appErr = err instanceof AppError ? err : this.unavailable(`failed (${(err as Error).message})`);
      if (this.failed.size >= (this.settings.maxEntries ?? 1000)) {
        const oldest = this.failed.keys().next().value;
        if (oldest !== undefined) this.failed.delete(oldest);
      }
      this.failed.set(binding, {
        err: appErr,
        until: this.now() + (this.settings.failureMemoryMs ?? 10_000),
      });
      throw appErr;
    }
  }

  private keep(binding: string, entry: Kept): void {
    const max = this.settings.maxEntries ?? 1000;
    while (this.kept.size >= max) {
      const oldest = this.kept.keys().next().value;
      if (oldest === undefined) break;
      this.kept.delete(oldest);
    }
    this.kept.set(binding, entry);
  }

  private async call(binding: string): Promise<ProviderAnswer> {
    const { timeoutMs } = this.settings;
    let status: number;
    let text: string;
    try {
      const res = await request(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ content_binding: binding, bypass_cache: false }),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      const parts: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_ANSWER_BYTES) {
          res.body.destroy();
          throw this.unavailable(`answered more than ${MAX_ANSWER_BYTES} bytes`);
        }
        parts.push(chunk as Buffer);
      }
      text = Buffer.concat(parts).toString('utf8');
    } catch (err) {
      if (err instanceof AppError) throw err;
      const name = (err as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError' || /timeout/i.test((err as Error).message)) {
        throw this.unavailable(`did not answer within ${timeoutMs} ms`);
      }
      throw this.unavailable(`could not be reached (${(err as Error).message})`);
    }
    if (status !== 200) throw this.unavailable(`answered HTTP ${status}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw this.unavailable('answered something that is not JSON');
    }
    const answer = parseProviderAnswer(json);
    if (!answer) throw this.unavailable('answered no PO token');
    if (answer.binding !== null && answer.binding !== binding) {
      throw this.unavailable(`answered a token for another content binding (${answer.binding.slice(0, 40)})`);
    }
    return answer;
  }
}

export interface PoTokenConfig {
  readonly providerUrl: string | null;
  readonly token: string | null;
  readonly visitorData: string | null;
  readonly timeoutMs: number;
}

/** The configured source, or null (gated tracks are then given up, as before tokens existed). */
export function poTokenSource(config: PoTokenConfig | undefined | null): PoTokenSource | null {
  if (!config) return null;
  if (config.providerUrl) return new ProviderPoTokens(config.providerUrl, { timeoutMs: config.timeoutMs });
  if (config.token) return new StaticPoTokens(config.token, config.visitorData);
  return null;
}
