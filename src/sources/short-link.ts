// Short links (vm.tiktok.com/…, fb.watch/…, t.co/…, share/ links) resolved hop by hop: each hop is
// one request through the platform's upstream with redirects off, so overrides, proxies and the SSRF
// guard apply to every hop, and we stop as soon as a URL names what we want.
import { AppError } from '../errors.js';
import type { SafeResponse } from '../net/safe-fetch.js';
import type { Upstreams } from '../net/upstream.js';

const MAX_HOPS = 6;

export interface FollowOptions<R> {
  /** What a location names: a result ends the walk, null follows it one hop further. */
  recognise(url: URL): R | null;
  /** Whether a host is still the platform's: a link leading elsewhere names no video of it (→ 400). */
  ownHost(host: string): boolean;
  headers?: Record<string, string>;
  method?: 'GET' | 'HEAD';
  /** The platform's walls (its blocks.ts): such a hop is retried through another proxy. */
  blocked?(res: SafeResponse): boolean;
  signal?: AbortSignal;
}

export async function followShortLink<R>(
  upstreams: Upstreams,
  platform: string,
  start: string,
  options: FollowOptions<R>,
): Promise<R> {
  let url = start;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const res = await upstreams.fetch(platform, url, {
      method: options.method ?? 'HEAD',
      headers: options.headers,
      maxRedirects: 0,
      signal: options.signal,
      blocked: options.blocked,
      maxBytes: 1024 * 1024,
      truncate: true,
    });
    const location = res.headers.location;
    if (res.status < 300 || res.status >= 400 || !location) {
      if (res.status === 404 || res.status === 410) {
        throw new AppError(
          'not_found',
          `The ${platform} short link leads nowhere (HTTP ${res.status})`,
          'url',
        );
      }
      throw new AppError(
        'upstream_error',
        `The ${platform} short link did not redirect to a video (HTTP ${res.status})`,
      );
    }
    const next = new URL(String(location), url);
    if (!options.ownHost(next.hostname)) {
      throw new AppError(
        'invalid_request',
        `Invalid parameter 'url': the ${platform} short link leads to ${next.hostname}, not to a video or post`,
        'url',
      );
    }
    const found = options.recognise(next);
    if (found !== null) return found;
    url = next.toString();
  }
  throw new AppError('upstream_error', `The ${platform} short link redirected more than ${MAX_HOPS} times`);
}
