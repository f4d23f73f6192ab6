// Wires the services of one process from its configuration. Nothing here listens or runs work.
import { Redis } from 'ioredis';
import Stripe from 'stripe';
import { Accounts } from './accounts/accounts.js';
import { Authenticator } from './accounts/authenticator.js';
import {
  type CheckoutProvider,
  Checkouts,
  StripeCheckoutProvider,
  TestCheckoutProvider,
} from './billing/checkout.js';
import { Ledger } from './billing/ledger.js';
import { RequestCharges } from './billing/request-charges.js';
import { StripeEvents } from './billing/stripe-events.js';
import { CreditHistory } from './billing/usage.js';
import { MemoryCache, RedisCache, type ResultCache } from './cache/result-cache.js';
import { registerCapabilities } from './capabilities.js';
import type { Config } from './config.js';
import { FileStore } from './files/store.js';
import { BullMqQueue } from './jobs/bullmq-queue.js';
import { EmbeddedQueue } from './jobs/embedded-queue.js';
import { JobItems } from './jobs/items.js';
import type { JobQueue } from './jobs/queue.js';
import { JobRecords } from './jobs/records.js';
import { JobRegistry } from './jobs/registry.js';
import { JobService } from './jobs/service.js';
import { type AiProviders, createAiProviders } from './media/ai/providers.js';
import { MediaDownloader } from './media/download.js';
import { Scratch } from './media/scratch.js';
import { Transcripts } from './media/transcripts.js';
import { TranscriptTranslations } from './media/translations.js';
import { BullMqClock, EmbeddedClock } from './monitors/clock.js';
import { MonitorRecords } from './monitors/records.js';
import { MonitorService } from './monitors/service.js';
import { ProxyPool } from './net/proxies.js';
import { SafeFetcher } from './net/safe-fetch.js';
import { Upstreams } from './net/upstream.js';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from './ratelimit/token-bucket.js';
import { Platforms, platformTable } from './sources/platforms.js';
import { BrowserPool } from './sources/web/browser-pool.js';
import { WebDocuments } from './sources/web/documents.js';
import { Mapper } from './sources/web/mapper.js';
import { pageModel } from './sources/web/page-model.js';
import { pdfToMarkdown } from './sources/web/pdf.js';
import { Scraper } from './sources/web/scraper.js';
import { WebSearch } from './sources/web/search.js';
import { poTokenSource } from './sources/youtube/po-token.js';
import { YouTube } from './sources/youtube/service.js';
import { openMigratedStore, type Store } from './store/db.js';
import { checkReadiness, type Readiness } from './store/readiness.js';

export interface Services {
  readonly config: Config;
  readonly store: Store;
  readonly redis: Redis | null;
  readonly ledger: Ledger;
  /** Paid requests: a hold of the price, settled on success; the hold while a job is sized. */
  readonly charges: RequestCharges;
  /** Reads of the credit history (the ledger alone writes it). */
  readonly usage: CreditHistory;
  readonly accounts: Accounts;
  readonly authenticator: Authenticator;
  readonly checkouts: Checkouts;
  readonly stripe: Stripe | null;
  /** Stripe's webhook events: signature check, then each paid checkout credited once. */
  readonly stripeEvents: StripeEvents;
  /** Per API key or session. */
  readonly rateLimiter: RateLimiter;
  /** Per account, shared by its keys and sessions. */
  readonly accountRateLimiter: RateLimiter;
  /** Per client IP, for register and login. */
  readonly authRateLimiter: RateLimiter;
  /** Outbound HTTP on a caller's behalf (SSRF-guarded). */
  readonly fetcher: SafeFetcher;
  /** Platform clients' way out: base-URL overrides, proxy rotation, retries on blocks. */
  readonly upstreams: Upstreams;
  /** Results of upstream calls and scrapes (memory, or Redis when configured). */
  readonly cache: ResultCache;
  /** Web pages: scrape, map, and the headless browser they share (started on first use). */
  readonly web: {
    readonly scraper: Scraper;
    readonly mapper: Mapper;
    readonly browser: BrowserPool;
    readonly documents: WebDocuments;
  };
  /** Web search through the operator's SearXNG (UNFURL_SEARXNG_URL). */
  readonly webSearch: WebSearch;
  /** The video-sharing platform: transcripts, video metadata, and its innertube client. */
  readonly youtube: YouTube;
  /** Per-job scratch directories for media work under the data dir. */
  readonly scratch: Scratch;
  /** Every video platform (one registry table): URL recognition, native captions, media location. */
  readonly platforms: Platforms;
  /** The transcript decision: captions, or a speech-recognition job. */
  readonly transcripts: Transcripts;
  /** Transcript translation: the platform's own, else the language model's. */
  readonly translations: TranscriptTranslations;
  /** The AI providers (speech recognition, vision, language model). */
  readonly ai: AiProviders;
  /** Media files streamed into scratch dirs (size cap, timeout, SSRF guard, proxies). */
  readonly downloader: MediaDownloader;
  /** Run at close, newest first (browser pools, …). */
  onClose(hook: () => Promise<void>): void;
  /** GET /ready: the database (and Redis, when configured) answer; else a 503 naming which. */
  readiness(): Promise<Readiness>;
  /** Monitors: their service, records, and where their ticks come from. */
  readonly monitors: {
    readonly service: MonitorService;
    readonly records: MonitorRecords;
    readonly clock: EmbeddedClock | BullMqClock;
    /** Starts taking ticks (a process that runs jobs); stopTicks stops. */
    startTicks(): Promise<void>;
    stopTicks(): Promise<void>;
  };
  /** Files requests and jobs produced (screenshots), in the database until they expire. */
  readonly files: FileStore;
  readonly jobs: {
    readonly registry: JobRegistry;
    readonly records: JobRecords;
    /** Results too big for one row (a crawl's pages). */
    readonly items: JobItems;
    readonly queue: JobQueue;
    readonly service: JobService;
  };
  close(): Promise<void>;
}

export function createStripe(config: Config): Stripe | null {
  if (!config.stripe.secretKey) return null;
  const override = config.upstreams.stripe;
  const target = override ? new URL(override) : null;
  return new Stripe(config.stripe.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(target && {
      host: target.hostname,
      port: Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
      protocol: target.protocol.replace(':', '') as 'http' | 'https',
    }),
  });
}

export function connectRedis(url: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 3,
    enableOfflineQueue: true,
    lazyConnect: false,
    enableAutoPipelining: true,
  });
}

function createMonitors(
  config: Config,
  store: Store,
  jobs: JobService,
  fetcher: SafeFetcher,
  youtube: YouTube,
): Services['monitors'] & { close(): Promise<void> } {
  const records = new MonitorRecords(store.db, store.dialect);
  const clock = config.redisUrl
    ? new BullMqClock(config.redisUrl, config.jobs.queuePrefix)
    : new EmbeddedClock(records, config.monitors.pollMs);
  const service = new MonitorService({
    records,
    jobs,
    fetcher,
    resolver: {
      channel: (ref) => youtube.channel(ref),
      playlist: (id) => youtube.playlist(id),
    },
    scheduler: clock,
    settings: config.monitors,
    canExtract: Boolean(config.ai.llm.baseUrl),
  });
  return {
    service,
    records,
    clock,
    async startTicks() {
      if (clock instanceof BullMqClock) {
        await clock.reconcile(await records.all());
        await clock.start(service);
      } else {
        clock.start(service);
      }
    },
    stopTicks: () => clock.stop(),
    async close() {
      await clock.stop();
      if (clock instanceof BullMqClock) await clock.close();
    },
  };
}

export async function createServices(config: Config): Promise<Services> {
  const store = await openMigratedStore(config);
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null;
  const ledger = new Ledger(store.db, store.dialect);
  const stripe = createStripe(config);
  let provider: CheckoutProvider | null = null;
  if (config.checkout === 'stripe' && stripe) provider = new StripeCheckoutProvider(stripe, config.publicUrl);
  if (config.checkout === 'test') provider = new TestCheckoutProvider(config.publicUrl);
  const keyPolicy = { rate: config.rateLimit.rps, burst: config.rateLimit.burst };
  const accountPolicy = { rate: config.accountRateLimit.rps, burst: config.accountRateLimit.burst };
  const registry = new JobRegistry();
  const records = new JobRecords(store.db, store.workerDb, store.dialect, store.pools);
  const queue: JobQueue = config.redisUrl
    ? new BullMqQueue(config.redisUrl, config.jobs.leaseMs, config.jobs.queuePrefix, console, (kind) =>
        Math.min(registry.concurrencyOf(kind), config.jobs.bundleMax),
      )
    : new EmbeddedQueue(config.jobs.pollMs);
  const jobService = new JobService(store.db, records, registry, ledger, queue, {
    maxAttempts: config.jobs.maxAttempts,
    resultTtlMs: config.jobResultTtlMs,
    perAccount: config.accountJobLimits,
  });
  const proxies = new ProxyPool(config.proxyUrls, {
    benchMs: config.proxyBench.baseMs,
    benchMaxMs: config.proxyBench.maxMs,
    shared: redis && { redis, prefix: config.jobs.queuePrefix },
  });
  const fetcher = new SafeFetcher({
    allowPrivateNetwork: config.allowPrivateNetwork,
    timeoutMs: config.fetch.timeoutMs,
    maxBytes: config.fetch.maxBytes,
    proxies,
  });
  const closeHooks: Array<() => Promise<void>> = [];
  const upstreams = new Upstreams(
    config.upstreams,
    fetcher,
    config.fetch.upstreamRetryBaseMs,
    config.cookies,
  );
  // Redis keys of their own ("v2": each value carries its expiry): a process of an older release
  // sharing this Redis never reads an entry it cannot understand.
  const cache: ResultCache = redis
    ? new RedisCache(redis, `${config.jobs.queuePrefix}:cache-v2:`, config.cache.maxEntries)
    : new MemoryCache(config.cache.maxEntries);
  const browser = new BrowserPool({
    chromiumPath: config.browser.chromiumPath,
    size: config.browser.poolSize,
    accountMax: config.browser.accountMax,
    queueTimeoutMs: config.browser.queueTimeoutMs,
    fetcher,
  });
  closeHooks.push(() => browser.close());
  // Web fetches: twice direct, or once per proxy when there are several.
  const webAttempts = Math.max(2, proxies.size);
  const ipPolicy = { rate: config.authRateLimit.perMinute / 60, burst: config.authRateLimit.perMinute };
  const youtube = new YouTube({
    upstreams,
    cache,
    ttlMs: config.cache.upstreamTtlMs,
    clients: config.youtubeClients,
    poTokens: poTokenSource(config.youtubePoToken),
  });
  const platforms = new Platforms(
    platformTable({
      youtube,
      upstreams,
      fetcher,
      cache,
      ttlMs: config.cache.upstreamTtlMs,
      xBearerToken: config.microblog.webBearerToken,
    }),
  );
  const charges = new RequestCharges(ledger);
  const ai = createAiProviders(config);
  closeHooks.push(() => ai.close());
  const checkouts = new Checkouts(store.db, ledger, config.checkout, provider);
  const monitors = createMonitors(config, store, jobService, fetcher, youtube);
  closeHooks.push(() => monitors.close());
  const scraper = new Scraper({
    upstreams,
    renderer: browser,
    cache,
    cacheTtlMs: config.cache.scrapeTtlMs,
    attempts: webAttempts,
  });
  // The operator's SearXNG: trusted like the AI providers (private addresses allowed, no proxy).
  const searchFetcher = new SafeFetcher({ allowPrivateNetwork: true, timeoutMs: config.search.timeoutMs });
  closeHooks.push(() => searchFetcher.close());
  const services: Services = {
    config,
    store,
    redis,
    ledger,
    charges,
    usage: new CreditHistory(store.db),
    accounts: new Accounts(store.db, ledger, config.sessionTtlMs),
    authenticator: new Authenticator(store.db, config.authCacheMs),
    checkouts,
    stripe,
    stripeEvents: new StripeEvents(stripe, config.stripe.webhookSecret, checkouts),
    rateLimiter: redis
      ? new RedisRateLimiter(redis, keyPolicy, `${config.jobs.queuePrefix}:rl:key:`)
      : new MemoryRateLimiter(keyPolicy),
    accountRateLimiter: redis
      ? new RedisRateLimiter(redis, accountPolicy, `${config.jobs.queuePrefix}:rl:acct:`)
      : new MemoryRateLimiter(accountPolicy),
    authRateLimiter: redis
      ? new RedisRateLimiter(redis, ipPolicy, `${config.jobs.queuePrefix}:rl:ip:`)
      : new MemoryRateLimiter(ipPolicy),
    fetcher,
    upstreams,
    cache,
    web: {
      scraper,
      mapper: new Mapper(upstreams, webAttempts),
      browser,
      documents: new WebDocuments({
        scraper,
        cache,
        cacheTtlMs: config.cache.scrapeTtlMs,
        // Late bound: the file store is one of these services. A job's files outlive the job's run
        // (at most an hour), so that they last as long as its result, which expires from its end.
        storeFile: (file) =>
          services.files.put(
            file.jobId ? { ...file, expiresAt: Date.now() + config.jobResultTtlMs + 60 * 60_000 } : file,
          ),
        model: config.ai.llm.baseUrl ? pageModel(ai.llm, config.ai.requestTimeoutMs) : null,
        pdf: pdfToMarkdown,
      }),
    },
    webSearch: new WebSearch(searchFetcher, {
      baseUrl: config.search.searxngUrl,
      timeoutMs: config.search.timeoutMs,
    }),
    youtube,
    scratch: new Scratch(config.dataDir),
    platforms,
    ai,
    translations: new TranscriptTranslations({
      youtube,
      charges,
      llm: ai.llm,
      modelBudgetMs: config.ai.requestTimeoutMs,
    }),
    transcripts: new Transcripts({
      platforms,
      charges,
      jobs: jobService,
      asr: config.ai,
      maxMediaSeconds: config.ai.maxMediaSeconds,
      fallbackOnBlock: config.transcripts.fallbackOnBlock,
      answers: { cache, ttlMs: config.cache.upstreamTtlMs },
    }),
    downloader: new MediaDownloader({
      fetcher,
      upstreams,
      maxBytes: config.media.maxBytes,
      timeoutMs: config.media.timeoutMs,
    }),
    readiness: () => checkReadiness(store, redis),
    onClose(hook) {
      closeHooks.push(hook);
    },
    jobs: { registry, records, items: new JobItems(store.db, store.workerDb), queue, service: jobService },
    files: new FileStore(store.db, { publicUrl: config.publicUrl, ttlMs: config.jobResultTtlMs }),
    monitors,
    async close() {
      for (const hook of closeHooks.reverse()) await hook().catch(() => {});
      await jobService.flushed();
      await queue.close();
      await fetcher.close();
      await proxies.close();
      redis?.disconnect();
      await store.close();
    },
  };
  registerCapabilities(services);
  return services;
}
