// How platform clients reach their platform: UNFURL_UPSTREAM_<PLATFORM> points every host of that
// platform at another origin (tests: a loopback replay server), and each request goes out through
// the next proxy, retried with backoff when the platform fails or blocks us.
import { AppError } from '../errors.js';
import { upstreamErrors, upstreamFailedAttempts } from '../metrics.js';
import type { SafeFetcher, SafeFetchOptions, SafeResponse } from './safe-fetch.js';

export interface UpstreamFetchOptions extends Omit<SafeFetchOptions, 'dispatcher' | 'proxy'> {
  /** True when an answer is a block (bot check, captcha page): retried on the next proxy. */
  blocked?(res: SafeResponse): boolean;
  /** Tries in all (default: one per proxy, at least 3). */
  attempts?: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

export class Upstreams {
  constructor(
    private readonly overrides: Readonly<Record<string, string>>,
    private readonly fetcher: SafeFetcher,
    private readonly retryBaseMs: number,
  ) {}

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
    const { blocked, attempts: wanted, ...fetchOptions } = options;
    const target = this.resolve(platform, url);
    const attempts = wanted ?? Math.max(3, this.fetcher.proxies?.size ?? 0);
    let last = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep(this.retryBaseMs * 2 ** (attempt - 2), options.signal);
      const dispatcher = this.fetcher.proxies?.next();
      try {
        const res = await this.fetcher.fetch(target, { ...fetchOptions, dispatcher });
        if (res.status === 429 || res.status >= 500) last = `HTTP ${res.status}`;
        else if (blocked?.(res)) last = 'a bot check';
        else return res;
      } catch (err) {
        // Our own refusals and caps are answers, not flakiness: no point retrying them.
        if (err instanceof AppError) throw err;
        if (options.signal?.aborted) throw err;
        last = (err as Error).message || String(err);
      }
      upstreamFailedAttempts.labels(platform).inc();
    }
    upstreamErrors.labels(platform).inc();
    throw new AppError(
      'upstream_error',
      `${platform} failed or blocked the request after ${attempts} attempts (last: ${last})`,
    );
  }
}
