// HTTP for the client: URL and query building, bearer auth, JSON in and out, the API's error body
// turned into UnfurlError, and retries of 429 answers and of 503s carrying Retry-After (a server shedding load): Retry-After first, else exponential backoff.
import { codeForStatus, UnfurlError } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 4; 0 turns retrying off). */
  maxRetries?: number;
  /** First backoff when the answer has no Retry-After (default 1000 ms; doubled each retry). */
  baseDelayMs?: number;
  /**
   * Longest single wait (default 60 000 ms). A Retry-After longer than this is not waited out: the
   * 429 is thrown at once, with its `retryAfterMs`.
   */
  maxDelayMs?: number;
}

export interface TransportOptions {
  /**
   * e.g. `http://127.0.0.1:8080`; a trailing slash or `/v1` is fine. Left out: the UNFURL_API_URL
   * environment variable (Node).
   */
  baseUrl?: string;
  /**
   * An API key (`uf_…`) or a session token (`uf_sess_…`); optional for public routes. Left out
   * (undefined): the UNFURL_API_KEY environment variable (Node); null sends none.
   */
  apiKey?: string | null;
  retry?: RetryOptions;
  /** Time limit of one HTTP attempt in milliseconds (default none). */
  timeoutMs?: number;
  /** Another fetch (a proxy agent, instrumentation); defaults to the global one. */
  fetch?: typeof fetch;
  /** Sent with every request. */
  headers?: Record<string, string>;
}

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];

export interface RequestSpec {
  method: string;
  /** Path with its parameters already filled in. */
  path: string;
  query?: object;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * `text`: a success answer's body is its text, not JSON (an Atom feed); `blob`: its bytes, as a Blob
   * whose `type` is the answer's Content-Type (a stored file). Errors are read as ever.
   */
  responseType?: 'json' | 'text' | 'blob';
}

/** What the last answer said about credits (from X-Credits-* headers), when it said anything. */
export interface CreditHeaders {
  charged: number | null;
  held: number | null;
  remaining: number | null;
}

export interface Answer<T> {
  status: number;
  body: T;
  requestId: string | null;
  credits: CreditHeaders;
}

/** Sent unless `headers` names another (browsers keep their own). */
export const USER_AGENT = 'unfurl-sdk/0.1.0';

const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function appendQuery(url: URL, query: object | undefined) {
  if (!query) return;
  for (const [name, value] of Object.entries(query as Record<string, QueryValue>)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) url.searchParams.append(name, String(v));
    else url.searchParams.set(name, String(value));
  }
}

/** A variable of the process environment where there is one (Node), else undefined (browsers). */
function fromEnvironment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name]?.trim();
  return value ? value : undefined;
}

/**
 * The server's root, with no trailing slash: every route path starts with its own `/v1/`, so a base
 * URL given with `/v1` (as the API's docs print it) loses it here.
 */
export function apiRoot(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '').replace(/\/v1$/, '');
}

const numberHeader = (headers: Headers, name: string) => {
  const v = headers.get(name);
  return v === null || v === '' || Number.isNaN(Number(v)) ? null : Number(v);
};

export class Transport {
  readonly baseUrl: string;
  apiKey: string | null;
  private readonly retry: Required<RetryOptions>;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number | undefined;
  private readonly headers: Record<string, string>;

  constructor(options: TransportOptions = {}) {
    const baseUrl = options.baseUrl ?? fromEnvironment('UNFURL_API_URL');
    if (!baseUrl) throw new TypeError('baseUrl is required (or set UNFURL_API_URL)');
    this.baseUrl = apiRoot(baseUrl);
    this.apiKey = options.apiKey === undefined ? (fromEnvironment('UNFURL_API_KEY') ?? null) : options.apiKey;
    this.retry = { ...DEFAULT_RETRY, ...stripUndefined(options.retry ?? {}) };
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs;
    this.headers = options.headers ?? {};
  }

  url(path: string, query?: object): URL {
    const url = new URL(this.baseUrl + path);
    appendQuery(url, query);
    return url;
  }

  async request<T>(spec: RequestSpec): Promise<Answer<T>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(spec);
      } catch (err) {
        // 429, and a 503 that says when to come back (a server shedding load): neither did any work.
        const retryable =
          err instanceof UnfurlError &&
          (err.code === 'rate_limited' || (err.code === 'service_unavailable' && err.retryAfterMs !== null));
        if (!retryable) throw err;
        if (attempt >= this.retry.maxRetries) throw err;
        const wait = err.retryAfterMs ?? this.retry.baseDelayMs * 2 ** attempt;
        if (err.retryAfterMs !== null && wait > this.retry.maxDelayMs) throw err;
        await sleep(Math.min(wait, this.retry.maxDelayMs), spec.signal);
      }
    }
  }

  private async once<T>(spec: RequestSpec): Promise<Answer<T>> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...this.headers,
      ...spec.headers,
    };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    const signals = [spec.signal, this.timeoutMs ? AbortSignal.timeout(this.timeoutMs) : undefined].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    let res: Response;
    let text: string;
    let blob: Blob | null = null;
    try {
      res = await this.fetchImpl(this.url(spec.path, spec.query), {
        method: spec.method,
        headers,
        body,
        signal,
      });
      if (spec.responseType === 'blob' && res.status < 400) {
        blob = await res.blob();
        text = '';
      } else {
        text = await res.text();
      }
    } catch (err) {
      // The caller's own abort is passed on as it is, like fetch does.
      if (spec.signal?.aborted) throw spec.signal.reason;
      const timedOut = (err as Error)?.name === 'TimeoutError';
      throw new UnfurlError({
        code: 'network_error',
        status: 0,
        message: timedOut
          ? `No answer from ${this.baseUrl} within ${this.timeoutMs} ms`
          : `Cannot reach ${this.baseUrl}: ${describeCause(err)}`,
        cause: err,
      });
    }
    const requestId = res.headers.get('x-request-id');
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (res.status >= 400) throw errorFrom(res, parsed, text, requestId);
    if (spec.responseType === 'text') parsed = text;
    if (blob) parsed = blob;
    if (parsed === undefined) {
      throw new UnfurlError({
        code: 'invalid_response',
        status: res.status,
        message: `Expected JSON from ${spec.method} ${spec.path}, got ${res.headers.get('content-type') ?? 'no content type'}`,
        details: text.slice(0, 200),
        requestId,
      });
    }
    return {
      status: res.status,
      body: parsed as T,
      requestId,
      credits: {
        charged: numberHeader(res.headers, 'x-credits-charged'),
        held: numberHeader(res.headers, 'x-credits-held'),
        remaining: numberHeader(res.headers, 'x-credits-remaining'),
      },
    };
  }
}

function errorFrom(res: Response, parsed: unknown, text: string, requestId: string | null): UnfurlError {
  const body = (parsed && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return new UnfurlError({
    code: str(body.error) ?? codeForStatus(res.status),
    status: res.status,
    message: str(body.message) ?? `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
    details: str(body.details),
    documentationUrl: str(body.documentationUrl),
    requestId,
    retryAfterMs: res.status === 429 ? parseRetryAfter(res.headers.get('retry-after')) : null,
  });
}

function describeCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
