// How platform clients reach their platform: UNFURL_UPSTREAM_<PLATFORM> points every host of that
// platform at another origin (tests: a loopback replay server), and each request goes out through
// a healthy proxy (proxies.ts), retried with backoff when the platform fails or blocks us — never on
// the proxy that just failed while another is healthy.
import { AppError } from '../errors.js';
import { upstreamErrors, upstreamFailedAttempts } from '../metrics.js';
import { type CookieJar, withAccountCookies } from './cookies.js';
import type { AllBenched } from './proxies.js';
import {
  type SafeFetcher,
  type SafeFetchOptions,
  type SafeResponse,
  UnresolvedHostError,
  unresolvedHost,
} from './safe-fetch.js';
import { retryAfterMs, sleep } from './waiting.js';

export interface UpstreamFetchOptions extends Omit<SafeFetchOptions, 'dispatcher' | 'proxy'> {
  /** True when an answer is a block (bot check, captcha page): retried on the next proxy. */
  blocked?(res: SafeResponse): boolean;
  /** Tries in all (default: one per proxy, at least 3). */
  attempts?: number;
  /** false: the operator's cookies for the platform stay out of this request (a client that refuses them). */
  accountCookies?: boolean;
}

export class Upstreams {
  constructor(
    private readonly overrides: Readonly<Record<string, string>>,
    private readonly fetcher: SafeFetcher,
    private readonly retryBaseMs: number,
    /** The operator's cookies per platform (UNFURL_COOKIES_<PLATFORM>); each jar sends only to its platform's hosts. */
    private readonly cookies: Readonly<Record<string, CookieJar>> = {},
  ) {}

  /** The value the operator's cookie `name` has for a request to `url` of `platform` (null: none). */
  accountCookie(platform: string, url: string, name: string): string | null {
    return this.cookies[platform]?.valueFor(url, name) ?? null;
  }

  /** The URL actually called for a platform URL: the override's origin (and path prefix) when set. */
  resolve(platform: string, url: string): string {
    const base = this.overrides[platform];
    if (!base) return url;
    const target = new URL(url);
    const root = new URL(base);
    const prefix = root.pathname.replace(/\/+$/, '');
    return `${root.origin}${prefix}${target.pathname}${target.search}`;
  }

  async fetch(platform: string, url: string, options: UpstreamFetchOptions = {}): Promise<SafeResponse> {
    const { blocked, attempts: wanted, accountCookies = true, ...fetchOptions } = options;
    // Decided on the platform's own URL, before any override: an override is where it goes, not whose it is.
    const account = accountCookies ? (this.cookies[platform]?.headerFor(url) ?? '') : '';
    if (account) fetchOptions.headers = withCookieHeader(fetchOptions.headers, account);
    const target = this.resolve(platform, url);
    const pool = this.fetcher.proxies?.size ? this.fetcher.proxies : null;
    const attempts = wanted ?? Math.max(3, pool?.size ?? 0);
    // The open web is countless sites: one site's wall or outage says nothing of the proxy for the next.
    const tracked = platform === 'web' ? null : platform;
    let last = '';
    let made = 0;
    let avoid: number | undefined;
    let pause = true;
    let benched: AllBenched | null = null;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1 && pause) await sleep(this.retryBaseMs * 2 ** (attempt - 2), options.signal);
      const lease = pool
        ? await pool.take(tracked, { avoid, waitMs: options.timeoutMs, signal: options.signal })
        : null;
      if (lease && 'benched' in lease) {
        if (made === 0) throw allBenched(platform, lease);
        benched = lease;
        break;
      }
      made++;
      try {
        const res = await this.fetcher.fetch(target, { ...fetchOptions, dispatcher: lease?.dispatcher });
        const failure =
          res.status === 429 ? 'blocked' : res.status >= 500 ? 'failed' : blocked?.(res) ? 'blocked' : null;
        if (!failure) {
          lease?.succeeded();
          return res;
        }
        last =
          failure === 'blocked' && res.status !== 429
            ? 'a block (a bot check, a captcha or an empty answer)'
            : `HTTP ${res.status}`;
        lease?.failed(failure, retryAfterMs(res.headers['retry-after']));
      } catch (err) {
        // Our own refusals and caps are answers, not flakiness: no point retrying them.
        if (err instanceof AppError || options.signal?.aborted) {
          lease?.release();
          throw err;
        }
        // A name that does not exist will not exist on the next try, nor through another exit.
        const host = unresolvedHost(err, target);
        if (host !== null) {
          lease?.release();
          throw hostNotFound(platform, host);
        }
        last = (err as Error).message || String(err);
        lease?.failed('failed', null);
      }
      avoid = lease?.index;
      // A block is the platform's verdict on one address: another exit is tried at once. Only going
      // direct (no proxies) is there nothing to switch to, so the retry waits its backoff.
      pause = !lease;
      upstreamFailedAttempts.labels(platform).inc();
    }
    upstreamErrors.labels(platform).inc();
    throw new UpstreamRefused(
      `${platform} failed or blocked the request after ${made} attempt${made === 1 ? '' : 's'} (last: ${last})${benched ? '; every proxy is now benched for it' : ''}`,
      null,
      benched ? { retryAfterMs: benched.retryAfterMs } : {},
    );
  }
}

/** The platform kept failing or blocking a request through every attempt (502). */
export class UpstreamRefused extends AppError {
  constructor(message: string, details: string | null, more: { retryAfterMs?: number }) {
    super('upstream_error', message, details, more);
  }
}

/**
 * Whether `err` says the platform would not answer us (it kept blocking or failing, or every proxy is
 * benched for it), rather than what it answered.
 */
export const isPlatformRefusal = (err: unknown): boolean =>
  err instanceof UpstreamRefused || (err instanceof AppError && err.code === 'service_unavailable');

/**
 * A host name that does not resolve. On the open web the host is the caller's (the URL they sent, or
 * where it redirects): 400 naming it. A platform's own host not resolving is this server's trouble
 * (its DNS, an override): 502.
 */
function hostNotFound(platform: string, host: string): AppError {
  if (platform === 'web') return new UnresolvedHostError(host);
  upstreamErrors.labels(platform).inc();
  return new AppError(
    'upstream_error',
    `${platform}: the host ${host} does not resolve (DNS: not found)`,
    host,
  );
}

const retryAfterSeconds = (benched: AllBenched) =>
  String(Math.max(1, Math.ceil(benched.retryAfterMs / 1000)));

/** Every proxy is benched for the platform: 503 at once, unbilled, with when to come back. */
export function allBenched(platform: string, benched: AllBenched): AppError {
  const seconds = retryAfterSeconds(benched);
  return new AppError(
    'service_unavailable',
    `Every proxy is benched for ${platform} after its blocks or failures; retry after ${seconds} s`,
    null,
    { retryAfterMs: benched.retryAfterMs },
  );
}

/** Headers with the account's cookies merged into whatever Cookie header they already carry. */
function withCookieHeader(
  headers: Record<string, string> | undefined,
  account: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  let own: string | undefined;
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (k.toLowerCase() === 'cookie') own = v;
    else out[k] = v;
  }
  out.cookie = withAccountCookies(own, account);
  return out;
}
