// One OpenAI-compatible endpoint (speech, vision or language model): JSON and multipart POSTs,
// retried on 429/5xx and network faults with backoff (Retry-After honoured), every call bounded by
// the job's time budget and cancelled with its signal. Failures become AppErrors that say they are final, with a clear text.
//
// SSRF: the base URL is operator configuration, never caller input, so it is trusted like the
// database URL — a self-hosted model on localhost or a private address is allowed. The fetcher
// given here is built for that (private addresses allowed, no proxies), and redirects are not
// followed, so a provider cannot bounce us somewhere else.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { AiEndpoint } from '../../config.js';
import { AppError, permanent } from '../../errors.js';
import type { SafeFetcher, SafeResponse } from '../../net/safe-fetch.js';
import { retryAfterMs } from '../../net/waiting.js';
import type { Budget } from './budget.js';
import { encodeMultipart, type MultipartPart } from './multipart.js';

export interface AiClientSettings {
  /** One request, body included. */
  requestTimeoutMs: number;
  /** First pause before a retry; doubled each time. */
  retryBaseMs: number;
  /** Tries per call (first one included). */
  attempts?: number;
  /** Largest answer accepted. */
  maxResponseBytes?: number;
  /** Connection pool whose header/body timeouts allow slow answers (a long transcription). */
  dispatcher?: Dispatcher;
}

export interface CallOptions {
  budget: Budget;
  signal: AbortSignal;
}

/** What the task is called in error messages. */
export type AiTask = 'speech recognition' | 'vision' | 'language model';

const MAX_PAUSE_MS = 60_000;

/** The provider's own error text, when its answer carries one (`{error:{message}}` or `{error}`). */
function providerMessage(res: SafeResponse): string {
  try {
    const body = JSON.parse(res.body.toString('utf8')) as { error?: { message?: string } | string };
    const msg = typeof body.error === 'string' ? body.error : body.error?.message;
    if (msg) return String(msg).slice(0, 300);
  } catch {}
  return res.body.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200) || `HTTP ${res.status}`;
}

export class AiClient {
  private readonly attempts: number;

  constructor(
    readonly endpoint: AiEndpoint,
    readonly task: AiTask,
    private readonly fetcher: SafeFetcher,
    private readonly settings: AiClientSettings,
  ) {
    this.attempts = settings.attempts ?? 4;
  }

  get configured(): boolean {
    return this.endpoint.baseUrl !== null;
  }

  get model(): string {
    return this.endpoint.model;
  }

  /** 503 provider_unavailable when this task has no provider (checked when a job is submitted). */
  requireConfigured(): void {
    if (!this.configured) {
      throw new AppError(
        'provider_unavailable',
        `No AI provider is configured for ${this.task} on this server (UNFURL_AI_BASE_URL)`,
      );
    }
  }

  postJson<T>(path: string, body: unknown, opts: CallOptions): Promise<T> {
    return this.post<T>(
      path,
      () => ({ body: Buffer.from(JSON.stringify(body)), contentType: 'application/json' }),
      opts,
    );
  }

  postMultipart<T>(path: string, parts: readonly MultipartPart[], opts: CallOptions): Promise<T> {
    return this.post<T>(path, () => encodeMultipart(parts), opts);
  }

  private async post<T>(
    path: string,
    encode: () => { body: Buffer; contentType: string },
    opts: CallOptions,
  ): Promise<T> {
    this.requireConfigured();
    const url = `${this.endpoint.baseUrl}${path}`;
    const { body, contentType } = encode();
    const headers: Record<string, string> = { 'content-type': contentType, accept: 'application/json' };
    if (this.endpoint.apiKey) headers.authorization = `Bearer ${this.endpoint.apiKey}`;
    let last = '';
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      const timeoutMs = Math.min(this.settings.requestTimeoutMs, opts.budget.remainingMs());
      if (timeoutMs <= 0) throw this.outOfTime(last);
      let pauseMs = this.settings.retryBaseMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
      try {
        const res = await this.fetcher.fetch(url, {
          method: 'POST',
          headers,
          body,
          signal: opts.signal,
          timeoutMs,
          maxRedirects: 0,
          maxBytes: this.settings.maxResponseBytes ?? 32 * 1024 * 1024,
          ...(this.settings.dispatcher && { dispatcher: this.settings.dispatcher }),
        });
        if (res.status >= 200 && res.status < 300) return this.parse<T>(res);
        last = `HTTP ${res.status}: ${providerMessage(res)}`;
        if (res.status !== 429 && res.status < 500) throw this.refused(res.status, last);
        pauseMs = Math.max(pauseMs, retryAfterMs(res.headers['retry-after']) ?? 0);
      } catch (err) {
        if (err instanceof AppError && err.retryable !== null) throw err;
        if (opts.signal.aborted) throw opts.signal.reason ?? err;
        last = (err as Error).name === 'TimeoutError' ? 'no answer in time' : (err as Error).message;
      }
      if (attempt === this.attempts) break;
      // A pause that would outlast the budget is not worth taking.
      if (pauseMs > Math.min(MAX_PAUSE_MS, opts.budget.remainingMs())) throw this.outOfTime(last);
      await sleep(pauseMs, undefined, { signal: opts.signal }).catch((err: unknown) => {
        // The job's own reason (timed out, shutting down) tells the runner what happened.
        throw opts.signal.reason ?? err;
      });
    }
    throw permanent(
      `The ${this.task} provider failed ${this.attempts} times (last: ${last})`,
      'provider_unavailable',
    );
  }

  private parse<T>(res: SafeResponse): T {
    try {
      return JSON.parse(res.body.toString('utf8')) as T;
    } catch {
      throw permanent(`The ${this.task} provider answered with something other than JSON`, 'upstream_error');
    }
  }

  private refused(status: number, last: string): AppError {
    // A refused key or a missing model is the operator's to fix: the provider is unusable as configured.
    const code =
      status === 401 || status === 403 || status === 404 ? 'provider_unavailable' : 'upstream_error';
    return permanent(`The ${this.task} provider refused the request (${last})`, code);
  }

  private outOfTime(last: string): AppError {
    return permanent(
      `The ${this.task} provider did not answer within the job's time budget${last ? ` (last: ${last})` : ''}`,
      'provider_unavailable',
    );
  }
}
