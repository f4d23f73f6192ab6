// Web search (POST /v1/web/search) through the SearXNG instance the operator runs
// (UNFURL_SEARXNG_URL): one GET of its JSON API per search, read by search-parse.ts.
//
// SSRF: the base URL is operator configuration, never caller input, so it is trusted like the AI
// providers' (media/ai/client.ts): the fetcher given here may reach loopback and private addresses and
// uses no proxy, redirects are not followed, and the call is bounded in time and size. Credentials in
// the URL (`https://user:pass@search.internal`) go as Basic authentication, never in the URL fetched.
import { AppError } from '../../errors.js';
import type { SafeFetcher, SafeResponse } from '../../net/safe-fetch.js';
import { retryAfterMs } from '../../net/waiting.js';
import { parseSearxngAnswer, type SearchAnswer, type SearchAsk, searxngParams } from './search-parse.js';

export const SEARXNG_SETTING = 'UNFURL_SEARXNG_URL';

/** Largest SearXNG answer read (a page of results is tens of kilobytes). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface WebSearchSettings {
  /** SearXNG's base URL (its /search is appended); null: search is not offered here. */
  baseUrl: string | null;
  /** One search, answer included. */
  timeoutMs: number;
}

/** The caller's part of a search: aborting it stops the call to SearXNG. */
export interface SearchContext {
  signal?: AbortSignal;
}

/** The backend's own error text, when its answer carries one (`{error}` of SearXNG's JSON errors). */
function backendText(res: SafeResponse): string {
  const text = res.body.toString('utf8');
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof error === 'string' && error) return error.slice(0, 200);
  } catch {}
  return (
    text
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 200) || `HTTP ${res.status}`
  );
}

export class WebSearch {
  private readonly searchUrl: string | null;
  private readonly headers: Record<string, string> = { accept: 'application/json' };

  constructor(
    private readonly fetcher: Pick<SafeFetcher, 'fetch'>,
    private readonly settings: WebSearchSettings,
  ) {
    if (!settings.baseUrl) {
      this.searchUrl = null;
      return;
    }
    const base = new URL(settings.baseUrl);
    if (base.username || base.password) {
      const user = decodeURIComponent(base.username);
      const password = decodeURIComponent(base.password);
      this.headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
      base.username = '';
      base.password = '';
    }
    base.search = '';
    base.hash = '';
    this.searchUrl = `${base.href.replace(/\/+$/, '')}/search`;
  }

  get configured(): boolean {
    return this.searchUrl !== null;
  }

  /** 503 provider_unavailable naming the setting when no SearXNG is configured (before any charge). */
  requireConfigured(): void {
    if (!this.configured) {
      throw new AppError(
        'provider_unavailable',
        `Web search is not configured on this server: it needs a SearXNG instance (${SEARXNG_SETTING})`,
      );
    }
  }

  /** One page of SearXNG's results for `ask`, at most `ask.limit` of them. */
  async search(ask: SearchAsk, context: SearchContext = {}): Promise<SearchAnswer> {
    this.requireConfigured();
    const params = searxngParams(ask);
    params.set('format', 'json');
    let res: SafeResponse;
    try {
      res = await this.fetcher.fetch(`${this.searchUrl}?${params}`, {
        headers: this.headers,
        timeoutMs: this.settings.timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
        maxRedirects: 0,
        signal: context.signal,
      });
    } catch (err) {
      if (context.signal?.aborted) throw context.signal.reason ?? err;
      throw this.failed(err);
    }
    if (res.status === 200) return parseSearxngAnswer(this.json(res), ask);
    const text = backendText(res);
    if (res.status === 403) {
      // SearXNG's answer when `json` is not among settings.yml's search.formats (or its limiter blocks us).
      throw this.unavailable(
        `refused the search (HTTP 403: ${text}); its settings.yml must list json in search.formats, and its bot limiter must let this server through`,
      );
    }
    if (res.status === 429 || res.status === 503) {
      const after = retryAfterMs(res.headers['retry-after']);
      throw this.unavailable(`is busy (HTTP ${res.status}: ${text})`, after ?? 5_000);
    }
    if (res.status >= 300 && res.status < 400) {
      throw this.unavailable(`answered a redirect (HTTP ${res.status}) instead of results; check its URL`);
    }
    throw new AppError('upstream_error', `The search backend (SearXNG) failed (HTTP ${res.status}: ${text})`);
  }

  private json(res: SafeResponse): unknown {
    try {
      return JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new AppError(
        'upstream_error',
        `The search backend (SearXNG) answered ${res.contentType ?? 'something'} instead of JSON; is ${SEARXNG_SETTING} the address of a SearXNG instance?`,
      );
    }
  }

  private failed(err: unknown): AppError {
    if (err instanceof AppError && err.code === 'payload_too_large') {
      return new AppError('upstream_error', 'The search backend (SearXNG) answered more than 4 MiB');
    }
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') {
      return this.unavailable(`did not answer within ${this.settings.timeoutMs} ms`, 5_000);
    }
    const cause = (e.cause as Error | undefined)?.message;
    return this.unavailable(`could not be reached (${cause ?? e.message})`, 5_000);
  }

  private unavailable(why: string, retryAfter?: number): AppError {
    return new AppError(
      'provider_unavailable',
      `The search backend (SearXNG, ${SEARXNG_SETTING}) ${why}`,
      null,
      retryAfter === undefined ? {} : { retryAfterMs: retryAfter },
    );
  }
}
