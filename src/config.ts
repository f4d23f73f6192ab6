// The one place that reads process.env: every setting is parsed, validated and frozen here.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDuration } from './durations.js';
import { CookieFileError, CookieJar, parseCookiesTxt } from './net/cookies.js';
import { PLATFORM_HOSTS } from './sources/platform-hosts.js';
import { ClientTableError, type PlayerClient, parseClientTable } from './sources/youtube/client-table.js';

export type CheckoutMode = 'stripe' | 'test' | 'off';

export interface Config {
  readonly port: number;
  readonly host: string;
  /**
   * Connections the kernel may queue for this process to accept. Past it, a new connection's SYN is
   * dropped and its client waits 1, 3, 7… seconds to retry: under a burst the slowest answers are
   * connections that never got in. The kernel caps it at net.core.somaxconn.
   */
  readonly listenBacklog: number;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  readonly publicUrl: string;
  /** Token bucket per API key or session. */
  readonly rateLimit: { readonly rps: number; readonly burst: number };
  /** Token bucket per account, shared by all its keys and sessions (so more keys add nothing). */
  readonly accountRateLimit: { readonly rps: number; readonly burst: number };
  /** Most live (queued or active) jobs one account may have, per group of heavy kinds. */
  readonly accountJobLimits: {
    readonly crawls: number;
    readonly mediaJobs: number;
    /** Monitor checks queued or running at once. */
    readonly monitorChecks: number;
  };
  /** Monitors: scheduled checks of channels, playlists, pages and sites. */
  readonly monitors: {
    /** The shortest interval a schedule may have (cron ticks may not come closer either). */
    readonly minIntervalMs: number;
    /** Monitors one account may have. */
    readonly maxPerAccount: number;
    /** Checks an hour one account's schedules may make, and manual checks it may ask for. */
    readonly maxChecksPerHour: number;
    /** How often the embedded deployment looks for monitors that are due. */
    readonly pollMs: number;
    /** Checks one process runs at once (they mostly wait on the network). */
    readonly checkConcurrency: number;
  };
  readonly authRateLimit: { readonly perMinute: number };
  /**
   * Load shedding: past these, new requests get a fast 503 with Retry-After (nothing charged) until
   * the process catches up. 0 turns a limit off.
   */
  readonly shedding: {
    /** How late the event loop may run (its timers past due), in ms. */
    readonly maxEventLoopDelayMs: number;
    /** Requests in progress in this process. */
    readonly maxInFlight: number;
    readonly retryAfterSeconds: number;
  };
  readonly allowPrivateNetwork: boolean;
  readonly upstreams: Readonly<Record<string, string>>;
  readonly proxyUrls: readonly string[];
  /** A proxy a platform blocks or fails is benched for it: first for baseMs, doubled up to maxMs. */
  readonly proxyBench: { readonly baseMs: number; readonly maxMs: number };
  readonly ai: {
    readonly baseUrl: string | null;
    readonly apiKey: string | null;
    readonly asrModel: string;
    readonly visionModel: string;
    readonly llmModel: string;
    /** Where each task goes: its own UNFURL_<TASK>_BASE_URL / _API_KEY, else the shared provider. */
    readonly asr: AiEndpoint;
    readonly vision: AiEndpoint;
    readonly llm: AiEndpoint;
    /** Largest audio file sent in one transcription request (OpenAI and Groq take 25 MB). */
    readonly asrMaxUploadBytes: number;
    /** Longest media one AI job takes (speech recognition, describe, extract): UNFURL_AI_MAX_MINUTES. */
    readonly maxMediaSeconds: number;
    /** One provider request, body included. */
    readonly requestTimeoutMs: number;
    /** All provider calls of one job, retries and their pauses included. */
    readonly jobBudgetMs: number;
    /** First pause before retrying a 429/5xx (doubled each time; Retry-After wins when longer). */
    readonly retryBaseMs: number;
    /** Who recognises speech: the OpenAI-compatible provider above, or whisper.cpp on this machine. */
    readonly asrEngine: AsrEngine;
    /** whisper.cpp settings (used when asrEngine is whisper). */
    readonly whisper: WhisperSettings;
  };
  /** Transcripts in auto mode: a caption request the platform refuses falls back to speech recognition. */
  readonly transcripts: { readonly fallbackOnBlock: boolean };
  readonly stripe: { readonly secretKey: string | null; readonly webhookSecret: string | null };
  readonly checkout: CheckoutMode;
  readonly bodyLimitBytes: number;
  readonly logLevel: string;
  /** LOG_FORMAT: `pretty` lines for people, `json` for collectors, `auto` pretty only on a terminal. */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  /** Port of `unfurl worker`'s own /metrics listener (on HOST); 0: none. */
  readonly workerMetricsPort: number;
  /** Trust X-Forwarded-For from this many proxy hops (0: use the socket address). */
  readonly trustProxyHops: number;
  readonly sessionTtlMs: number;
  readonly authCacheMs: number;
  readonly jobResultTtlMs: number;
  readonly jobs: {
    /** An active job whose lease is not renewed for this long is taken to be lost. */
    readonly leaseMs: number;
    readonly maxAttempts: number;
    /** First retry delay; doubled on each further attempt. */
    readonly backoffMs: number;
    /** How often the embedded queue looks for due jobs it was not woken for. */
    readonly pollMs: number;
    /** How often lost jobs and expired results are swept. */
    readonly sweepMs: number;
    /** Prefix of every Redis key (queues, rate limits): separates deployments sharing one Redis. */
    readonly queuePrefix: string;
    /** BullMQ: most first attempts one message carries (also capped by the kind's concurrency; 1: none). */
    readonly bundleMax: number;
  };
  readonly webhooks: {
    readonly retryBaseMs: number;
    readonly maxAttempts: number;
    readonly timeoutMs: number;
  };
  /** Outbound fetches on a caller's behalf (pages, media, platform APIs). */
  readonly fetch: {
    readonly timeoutMs: number;
    readonly maxBytes: number;
    /** First pause before retrying a failed or blocked platform request; doubled each time. */
    readonly upstreamRetryBaseMs: number;
  };
  readonly cache: {
    /** Entries kept by the in-process cache (no Redis). */
    readonly maxEntries: number;
    /** Scrape answers per URL and options; 0 turns the cache off. */
    readonly scrapeTtlMs: number;
    /** Platform answers (players, transcripts, pages); 0 turns the cache off. */
    readonly upstreamTtlMs: number;
  };
  readonly browser: {
    readonly chromiumPath: string;
    readonly poolSize: number;
    /** Pages one account renders at once (default: half the pool, at least 1). */
    readonly accountMax: number;
    /** The longest a render waits for a slot before 429/503. */
    readonly queueTimeoutMs: number;
  };
  readonly crawl: { readonly concurrency: number; readonly perHostConcurrency: number };
  /** The media tools run (UNFURL_FFMPEG_PATH, UNFURL_FFPROBE_PATH, UNFURL_TESSERACT_PATH, UNFURL_PDFTOPPM_PATH). */
  readonly tools: ToolPaths;
  /** Media files downloaded for speech recognition, OCR, describe and extract. */
  readonly media: {
    /** Largest file fetched (bigger → 413 payload_too_large). */
    readonly maxBytes: number;
    /** The whole download, from the first byte asked to the last written. */
    readonly timeoutMs: number;
    /** Longest video OCR takes (UNFURL_MEDIA_MAX_SECONDS; longer → 413 payload_too_large). */
    readonly maxSeconds: number;
  };
  /** On-screen text (OCR) jobs. */
  readonly ocr: {
    /** OCR jobs run at once per process (each already uses several cores). */
    readonly jobConcurrency: number;
    /** tesseract processes one job runs side by side. */
    readonly processes: number;
    /** Frames sampled per second of video. */
    readonly fps: number;
  };
  /** The microblog's web GraphQL (all stats); unset: its public syndication answer only. */
  readonly microblog: { readonly webBearerToken: string | null };
  /** UNFURL_YOUTUBE_CLIENTS: the player clients in the order tried; null: the built-in table. */
  readonly youtubeClients: readonly PlayerClient[] | null;
  /** UNFURL_COOKIES_<PLATFORM>: the operator's account cookies by platform name, sent only to its hosts. */
  readonly cookies: Readonly<Record<string, CookieJar>>;
  /**
   * Proof-of-origin tokens for gated caption tracks: an operator-run provider (bgutil's HTTP
   * protocol; it wins when both are set) or a static token with its visitor data. Neither: gated
   * tracks are given up.
   */
  readonly youtubePoToken: {
    readonly providerUrl: string | null;
    readonly token: string | null;
    readonly visitorData: string | null;
    /** One provider call, answer included: UNFURL_YOUTUBE_POT_TIMEOUT_MS. */
    readonly timeoutMs: number;
  };
  /**
   * Web search (POST /v1/web/search) through the operator's SearXNG: its base URL (null: search answers
   * 503 naming UNFURL_SEARXNG_URL) and the longest one search may take, answer included.
   */
  readonly search: { readonly searxngUrl: string | null; readonly timeoutMs: number };
}

/** One OpenAI-compatible endpoint for one task; baseUrl null when the task is not configured. */
export interface AiEndpoint {
  readonly baseUrl: string | null;
  readonly apiKey: string | null;
  readonly model: string;
}

export type AsrEngine = 'provider' | 'whisper';

export interface WhisperSettings {
  /** The ggml model file (UNFURL_ASR_MODEL); null unless the engine is whisper. */
  readonly modelPath: string | null;
  /** Threads each recognition uses. */
  readonly threads: number;
  /** Recognition processes (each one job at a time, the model loaded once). */
  readonly processes: number;
  /** An idle process is stopped after this long (its memory given back); the next job starts one. */
  readonly idleMs: number;
  /** A part may take this many times its own length (plus a minute) before the process is killed. */
  readonly timeoutFactor: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`configuration ${variable}: ${reason}`);
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | null {
  const v = env[name]?.trim();
  return v ? v : null;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function durationMs(env: Env, name: string, fallback: number): number {
  const raw = str(env, name);
  if (raw === null) return fallback;
  const ms = parseDuration(raw);
  if (ms === null || ms < 1)
    throw new ConfigError(name, `must be a duration such as 5m, 30s, PT5M or 300 (seconds), got "${raw}"`);
  return ms;
}

function num(env: Env, name: string, fallback: number, min: number): number {
  const raw = str(env, name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new ConfigError(name, `must be a number ≥ ${min}, got "${raw}"`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === null) return fallback;
  if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function logFormat(env: Env): Config['logFormat'] {
  const raw = (str(env, 'LOG_FORMAT') ?? 'auto').toLowerCase();
  if (raw === 'auto' || raw === 'json' || raw === 'pretty') return raw;
  throw new ConfigError('LOG_FORMAT', `must be auto, json or pretty, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = str(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

/** Settings that share the UNFURL_UPSTREAM_ prefix but are not base-URL overrides. */
const UPSTREAM_SETTINGS = new Set(['UNFURL_UPSTREAM_RETRY_BASE_MS', 'UNFURL_UPSTREAM_CACHE_TTL_SECONDS']);

function upstreamOverrides(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(env)) {
    const m = /^UNFURL_UPSTREAM_([A-Z0-9_]+)$/.exec(name);
    if (!m || UPSTREAM_SETTINGS.has(name)) continue;
    const value = url(env, name, ['http:', 'https:']);
    if (value) out[m[1]!.toLowerCase()] = value.replace(/\/+$/, '');
  }
  return out;
}

/** A file a setting names, read whole at start-up (a clear error naming the setting when it cannot be). */
function settingFile(name: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError(name, `cannot read ${file} (${code})`);
  }
}

/**
 * UNFURL_YOUTUBE_CLIENTS: the player chain as a JSON array, given inline (the value starts with `[`)
 * or in a file (`@` then its path). Checked whole here: a table with any fault stops the start.
 */
function youtubeClients(env: Env): readonly PlayerClient[] | null {
  const name = 'UNFURL_YOUTUBE_CLIENTS';
  const raw = str(env, name);
  if (raw === null) return null;
  let text: string;
  if (raw.startsWith('[')) text = raw;
  else if (raw.startsWith('@') && raw.length > 1) text = settingFile(name, path.resolve(raw.slice(1)));
  else
    throw new ConfigError(name, 'must be a JSON array of client entries, or @ and the path of a JSON file');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(name, `is not valid JSON (${(err as Error).message})`);
  }
  try {
    return Object.freeze(parseClientTable(json));
  } catch (err) {
    if (err instanceof ClientTableError) throw new ConfigError(name, err.message);
    throw err;
  }
}

/**
 * UNFURL_COOKIES_<PLATFORM>: the path of a Netscape cookies.txt per platform. Only the cookies of that
 * platform's hosts that have not expired are kept; an unreadable or malformed file, or one with
 * nothing usable, stops the start. Messages name lines and counts, never a cookie.
 */
function platformCookies(env: Env): Record<string, CookieJar> {
  const out: Record<string, CookieJar> = {};
  for (const [platform, owns] of Object.entries(PLATFORM_HOSTS)) {
    const name = `UNFURL_COOKIES_${platform.toUpperCase()}`;
    const file = str(env, name);
    if (file === null) continue;
    const where = path.resolve(file);
    try {
      out[platform] = CookieJar.of(parseCookiesTxt(settingFile(name, where)), owns).jar;
    } catch (err) {
      if (err instanceof CookieFileError) throw new ConfigError(name, `${where}: ${err.message}`);
      throw err;
    }
  }
  for (const name of Object.keys(env)) {
    const m = /^UNFURL_COOKIES_(.+)$/.exec(name);
    if (m && !Object.hasOwn(PLATFORM_HOSTS, m[1]!.toLowerCase())) {
      const names = Object.keys(PLATFORM_HOSTS).map((p) => p.toUpperCase());
      throw new ConfigError(name, `names no platform that takes cookies (${names.join(', ')})`);
    }
  }
  return out;
}

/** UNFURL_<TASK>_BASE_URL / _API_KEY / _MODEL, falling back to UNFURL_AI_BASE_URL / _API_KEY. */
function aiEndpoint(env: Env, task: 'ASR' | 'VISION' | 'LLM', model: string): AiEndpoint {
  const own = url(env, `UNFURL_${task}_BASE_URL`, ['http:', 'https:']);
  return {
    baseUrl: (own ?? url(env, 'UNFURL_AI_BASE_URL', ['http:', 'https:']))?.replace(/\/+$/, '') ?? null,
    apiKey: str(env, `UNFURL_${task}_API_KEY`) ?? (own ? null : str(env, 'UNFURL_AI_API_KEY')),
    model: str(env, `UNFURL_${task}_MODEL`) ?? model,
  };
}

function asrEngine(env: Env): AsrEngine {
  const raw = (str(env, 'UNFURL_ASR_ENGINE') ?? 'provider').toLowerCase();
  if (raw !== 'provider' && raw !== 'whisper') {
    throw new ConfigError('UNFURL_ASR_ENGINE', `must be provider or whisper, got "${raw}"`);
  }
  return raw;
}

/** UNFURL_ASR_MODEL names a ggml model file when the engine is whisper (a provider's model name otherwise). */
function whisperSettings(env: Env): WhisperSettings {
  const engine = asrEngine(env);
  const model = str(env, 'UNFURL_ASR_MODEL');
  if (engine === 'whisper' && !model) {
    throw new ConfigError(
      'UNFURL_ASR_MODEL',
      'must name a whisper.cpp model file (ggml-*.bin) when UNFURL_ASR_ENGINE=whisper',
    );
  }
  return {
    modelPath: engine === 'whisper' && model ? path.resolve(model) : null,
    threads: int(env, 'UNFURL_ASR_THREADS', os.availableParallelism(), 1, 256),
    processes: int(env, 'UNFURL_ASR_PROCESSES', 1, 1, 64),
    idleMs: int(env, 'UNFURL_ASR_IDLE_SECONDS', 300, 0, 86_400) * 1000,
    timeoutFactor: num(env, 'UNFURL_ASR_TIMEOUT_FACTOR', 3, 0.001),
  };
}

export interface ToolPaths {
  readonly ffmpeg: string;
  readonly ffprobe: string;
  readonly tesseract: string;
  /** poppler's page renderer, for PDF pages without a text layer. */
  readonly pdftoppm: string;
}

/**
 * The media tools: the system binaries unless a variable points elsewhere. Media code asks at each run
 * (it is not handed the config), so this reads the environment of the moment.
 */
export function toolPaths(env: Env = process.env): ToolPaths {
  return {
    ffmpeg: str(env, 'UNFURL_FFMPEG_PATH') ?? 'ffmpeg',
    ffprobe: str(env, 'UNFURL_FFPROBE_PATH') ?? 'ffprobe',
    tesseract: str(env, 'UNFURL_TESSERACT_PATH') ?? 'tesseract',
    pdftoppm: str(env, 'UNFURL_PDFTOPPM_PATH') ?? 'pdftoppm',
  };
}

/** The environment a child tool runs in: this process's, plus `extra` (e.g. a thread limit). */
export function childEnv(extra?: Record<string, string>): NodeJS.ProcessEnv {
  return extra ? { ...process.env, ...extra } : process.env;
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const stripeKey = str(env, 'STRIPE_SECRET_KEY');
  const checkoutRaw = str(env, 'UNFURL_CHECKOUT') ?? (stripeKey ? 'stripe' : 'test');
  if (!['stripe', 'test', 'off'].includes(checkoutRaw)) {
    throw new ConfigError('UNFURL_CHECKOUT', `must be stripe, test or off, got "${checkoutRaw}"`);
  }
  if (checkoutRaw === 'stripe' && !stripeKey) {
    throw new ConfigError('UNFURL_CHECKOUT', 'stripe needs STRIPE_SECRET_KEY');
  }
  // Without the webhook secret, paid checkouts could never be credited.
  if (checkoutRaw === 'stripe' && !str(env, 'STRIPE_WEBHOOK_SECRET')) {
    throw new ConfigError('STRIPE_WEBHOOK_SECRET', 'is required when checkout runs through Stripe');
  }
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const publicUrl = url(env, 'UNFURL_PUBLIC_URL', ['http:', 'https:']) ?? `http://${host}:${port}`;
  const proxies = (str(env, 'UNFURL_PROXY_URLS') ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  // The message never repeats the entry: a proxy URL may hold a password.
  proxies.forEach((p, i) => {
    let parsed: URL | null = null;
    try {
      parsed = new URL(p);
    } catch {}
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
      throw new ConfigError('UNFURL_PROXY_URLS', `entry ${i + 1} is not an http:// or https:// proxy URL`);
    }
  });
  const keyRps = num(env, 'UNFURL_RATE_LIMIT_RPS', 10, 0.001);
  const keyBurst = int(env, 'UNFURL_RATE_LIMIT_BURST', 20, 1, 1_000_000);
  const poolSize = int(env, 'UNFURL_BROWSER_POOL_SIZE', 2, 1, 64);
  const config: Config = {
    port,
    host,
    listenBacklog: int(env, 'UNFURL_LISTEN_BACKLOG', 4096, 1, 65_535),
    dataDir: path.resolve(str(env, 'UNFURL_DATA_DIR') ?? './data'),
    databaseUrl,
    redisUrl,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    rateLimit: { rps: keyRps, burst: keyBurst },
    accountRateLimit: {
      rps: num(env, 'UNFURL_ACCOUNT_RATE_LIMIT_RPS', keyRps, 0.001),
      burst: int(env, 'UNFURL_ACCOUNT_RATE_LIMIT_BURST', keyBurst, 1, 1_000_000),
    },
    accountJobLimits: {
      crawls: int(env, 'UNFURL_ACCOUNT_MAX_CRAWLS', 2, 1, 10_000),
      mediaJobs: int(env, 'UNFURL_ACCOUNT_MAX_MEDIA_JOBS', 4, 1, 10_000),
      monitorChecks: int(env, 'UNFURL_ACCOUNT_MAX_MONITOR_CHECKS', 8, 1, 10_000),
    },
    monitors: {
      minIntervalMs: durationMs(env, 'UNFURL_MONITOR_MIN_INTERVAL', 5 * 60_000),
      maxPerAccount: int(env, 'UNFURL_ACCOUNT_MAX_MONITORS', 100, 0, 1_000_000),
      maxChecksPerHour: int(env, 'UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR', 600, 1, 10_000_000),
      pollMs: int(env, 'UNFURL_MONITOR_POLL_MS', 1000, 10, 60_000),
      checkConcurrency: int(env, 'UNFURL_MONITOR_CHECK_CONCURRENCY', 16, 1, 1000),
    },
    authRateLimit: { perMinute: int(env, 'UNFURL_AUTH_RATE_LIMIT_PER_MINUTE', 10, 1, 1_000_000) },
    shedding: {
      maxEventLoopDelayMs: int(env, 'UNFURL_SHED_EVENT_LOOP_DELAY_MS', 250, 0, 60_000),
      maxInFlight: int(env, 'UNFURL_SHED_MAX_IN_FLIGHT', 500, 0, 1_000_000),
      retryAfterSeconds: int(env, 'UNFURL_SHED_RETRY_AFTER_SECONDS', 2, 1, 3600),
    },
    allowPrivateNetwork: bool(env, 'UNFURL_ALLOW_PRIVATE_NETWORK', false),
    upstreams: upstreamOverrides(env),
    proxyUrls: proxies,
    proxyBench: {
      baseMs: int(env, 'UNFURL_PROXY_BENCH_MS', 250, 1, 3_600_000),
      maxMs: int(env, 'UNFURL_PROXY_BENCH_MAX_MS', 300_000, 1, 86_400_000),
    },
    ai: {
      baseUrl: url(env, 'UNFURL_AI_BASE_URL', ['http:', 'https:']),
      apiKey: str(env, 'UNFURL_AI_API_KEY'),
      asrModel: str(env, 'UNFURL_ASR_MODEL') ?? 'whisper-1',
      visionModel: str(env, 'UNFURL_VISION_MODEL') ?? 'gpt-4o-mini',
      llmModel: str(env, 'UNFURL_LLM_MODEL') ?? 'gpt-4o-mini',
      asr: aiEndpoint(env, 'ASR', 'whisper-1'),
      vision: aiEndpoint(env, 'VISION', 'gpt-4o-mini'),
      llm: aiEndpoint(env, 'LLM', 'gpt-4o-mini'),
      asrMaxUploadBytes: int(
        env,
        'UNFURL_ASR_MAX_UPLOAD_BYTES',
        25 * 1024 * 1024,
        16 * 1024,
        1024 * 1024 * 1024,
      ),
      maxMediaSeconds: int(env, 'UNFURL_AI_MAX_MINUTES', 240, 1, 24 * 60) * 60,
      requestTimeoutMs: int(env, 'UNFURL_AI_TIMEOUT_MS', 120_000, 100, 3_600_000),
      jobBudgetMs: int(env, 'UNFURL_AI_JOB_BUDGET_MS', 15 * 60_000, 100, 6 * 3_600_000),
      retryBaseMs: int(env, 'UNFURL_AI_RETRY_BASE_MS', 1000, 0, 60_000),
      asrEngine: asrEngine(env),
      whisper: whisperSettings(env),
    },
    transcripts: { fallbackOnBlock: bool(env, 'UNFURL_TRANSCRIPT_BLOCK_FALLBACK', true) },
    stripe: { secretKey: stripeKey, webhookSecret: str(env, 'STRIPE_WEBHOOK_SECRET') },
    checkout: checkoutRaw as CheckoutMode,
    bodyLimitBytes: int(env, 'UNFURL_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    logLevel: str(env, 'LOG_LEVEL') ?? 'info',
    logFormat: logFormat(env),
    workerMetricsPort: int(env, 'UNFURL_WORKER_METRICS_PORT', 0, 0, 65535),
    trustProxyHops: int(env, 'UNFURL_TRUST_PROXY_HOPS', 0, 0, 10),
    sessionTtlMs: 24 * 60 * 60 * 1000,
    authCacheMs: int(env, 'UNFURL_AUTH_CACHE_MS', 500, 0, 1000),
    jobResultTtlMs: int(env, 'UNFURL_JOB_RESULT_TTL_SECONDS', 86_400, 1, 365 * 86_400) * 1000,
    jobs: {
      leaseMs: int(env, 'UNFURL_JOB_LEASE_MS', 30_000, 500, 3_600_000),
      maxAttempts: int(env, 'UNFURL_JOB_MAX_ATTEMPTS', 3, 1, 20),
      backoffMs: int(env, 'UNFURL_JOB_BACKOFF_MS', 1000, 1, 3_600_000),
      pollMs: int(env, 'UNFURL_JOB_POLL_MS', 500, 10, 60_000),
      sweepMs: int(env, 'UNFURL_JOB_SWEEP_MS', 5000, 50, 600_000),
      queuePrefix: str(env, 'UNFURL_QUEUE_PREFIX') ?? 'unfurl',
      bundleMax: int(env, 'UNFURL_JOB_BUNDLE_MAX', 64, 1, 1000),
    },
    webhooks: {
      retryBaseMs: int(env, 'UNFURL_WEBHOOK_RETRY_BASE_MS', 5000, 1, 3_600_000),
      maxAttempts: int(env, 'UNFURL_WEBHOOK_MAX_ATTEMPTS', 8, 1, 50),
      timeoutMs: int(env, 'UNFURL_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    fetch: {
      timeoutMs: int(env, 'UNFURL_FETCH_TIMEOUT_MS', 30_000, 100, 600_000),
      maxBytes: int(env, 'UNFURL_FETCH_MAX_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      upstreamRetryBaseMs: int(env, 'UNFURL_UPSTREAM_RETRY_BASE_MS', 300, 0, 60_000),
    },
    cache: {
      maxEntries: int(env, 'UNFURL_CACHE_MAX_ENTRIES', 2000, 0, 1_000_000),
      scrapeTtlMs: int(env, 'UNFURL_SCRAPE_CACHE_TTL_SECONDS', 300, 0, 30 * 86_400) * 1000,
      upstreamTtlMs: int(env, 'UNFURL_UPSTREAM_CACHE_TTL_SECONDS', 3600, 0, 30 * 86_400) * 1000,
    },
    browser: {
      chromiumPath: str(env, 'UNFURL_CHROMIUM_PATH') ?? '/usr/bin/chromium',
      poolSize,
      // Half the pool by default: one account's stuck pages leave the other half to everyone else.
      accountMax: int(env, 'UNFURL_RENDER_ACCOUNT_MAX', Math.max(1, Math.floor(poolSize / 2)), 1, 64),
      queueTimeoutMs: int(env, 'UNFURL_RENDER_QUEUE_TIMEOUT_MS', 10_000, 0, 600_000),
    },
    crawl: {
      concurrency: int(env, 'UNFURL_CRAWL_CONCURRENCY', 8, 1, 256),
      perHostConcurrency: int(env, 'UNFURL_CRAWL_HOST_CONCURRENCY', 4, 1, 256),
    },
    tools: toolPaths(env),
    media: {
      maxBytes: int(env, 'UNFURL_MEDIA_MAX_BYTES', 512 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
      timeoutMs: int(env, 'UNFURL_MEDIA_TIMEOUT_MS', 10 * 60_000, 1000, 6 * 3_600_000),
      maxSeconds: int(env, 'UNFURL_MEDIA_MAX_SECONDS', 4 * 3600, 1, 24 * 3600),
    },
    ocr: {
      jobConcurrency: int(env, 'UNFURL_OCR_CONCURRENCY', 1, 1, 64),
      processes: int(env, 'UNFURL_OCR_PROCESSES', Math.min(4, os.availableParallelism()), 1, 64),
      fps: int(env, 'UNFURL_OCR_FPS', 2, 1, 10),
    },
    microblog: { webBearerToken: str(env, 'UNFURL_X_BEARER_TOKEN') },
    youtubeClients: youtubeClients(env),
    youtubePoToken: {
      providerUrl:
        url(env, 'UNFURL_YOUTUBE_POT_PROVIDER_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null,
      token: str(env, 'UNFURL_YOUTUBE_PO_TOKEN'),
      visitorData: str(env, 'UNFURL_YOUTUBE_VISITOR_DATA'),
      timeoutMs: int(env, 'UNFURL_YOUTUBE_POT_TIMEOUT_MS', 5000, 100, 60_000),
    },
    cookies: Object.freeze(platformCookies(env)),
    search: {
      searxngUrl: url(env, 'UNFURL_SEARXNG_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null,
      timeoutMs: int(env, 'UNFURL_SEARXNG_TIMEOUT_MS', 15_000, 100, 30_000),
    },
  };
  return Object.freeze(config);
}

/** Variables read by pattern rather than by name: per-platform base-URL overrides. */
export const CONFIG_VARIABLE_PATTERNS: readonly RegExp[] = [/^UNFURL_UPSTREAM_[A-Z0-9_]+$/];

/**
 * Every variable name loadConfig reads, recorded by running it over an empty environment, so the
 * list cannot drift from the code above. Deployment files (compose.yaml) are checked against it.
 */
export function configVariableNames(): readonly string[] {
  const seen = new Set<string>();
  const recorder = new Proxy({} as Env, {
    get(_target, name) {
      if (typeof name === 'string') seen.add(name);
      return undefined;
    },
  });
  loadConfig(recorder);
  return [...seen].sort();
}

/** Whether `name` is a variable this configuration understands. */
export function isConfigVariable(name: string): boolean {
  return configVariableNames().includes(name) || CONFIG_VARIABLE_PATTERNS.some((p) => p.test(name));
}
