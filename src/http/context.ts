// What the HTTP layer may use: the services its routes call, each narrowed to what routes need.
// No store, Redis, Stripe client or queue, and of the job registry only what its kinds show people
// (their prices): routes validate, call one service and shape the answer. `Services` (services.ts)
// satisfies this type, so main/ and tests pass it as it is; each route plugin declares the part it
// uses (`RoutePlugin<Pick<HttpContext, …>>`).
import type { Accounts } from '../accounts/accounts.js';
import type { Authenticator } from '../accounts/authenticator.js';
import type { Checkouts } from '../billing/checkout.js';
import type { RequestCharges } from '../billing/request-charges.js';
import type { StripeEvents } from '../billing/stripe-events.js';
import type { CreditHistory } from '../billing/usage.js';
import type { Config } from '../config.js';
import type { FileStore } from '../files/store.js';
import type { JobItems } from '../jobs/items.js';
import type { JobRegistry } from '../jobs/registry.js';
import type { JobService } from '../jobs/service.js';
import type { Transcripts } from '../media/transcripts.js';
import type { TranscriptTranslations } from '../media/translations.js';
import type { MonitorService } from '../monitors/service.js';
import type { SafeFetcher } from '../net/safe-fetch.js';
import type { RateLimiter } from '../ratelimit/token-bucket.js';
import type { Platforms } from '../sources/platforms.js';
import type { WebDocuments } from '../sources/web/documents.js';
import type { Mapper } from '../sources/web/mapper.js';
import type { Scraper } from '../sources/web/scraper.js';
import type { WebSearch } from '../sources/web/search.js';
import type { YouTube } from '../sources/youtube/service.js';

/**
 * The settings routes read: the server's own address and limits, the checkout mode, the AI providers,
 * the crawl's concurrency (a crawl may not ask for more).
 */
export type HttpConfig = Pick<
  Config,
  'publicUrl' | 'logLevel' | 'bodyLimitBytes' | 'trustProxyHops' | 'checkout' | 'ai' | 'shedding' | 'crawl'
>;

export interface HttpContext {
  readonly config: HttpConfig;
  readonly authenticator: Pick<Authenticator, 'authenticate' | 'forget'>;
  /** Per API key or session. */
  readonly rateLimiter: RateLimiter;
  /** Per account, shared by its keys and sessions. */
  readonly accountRateLimiter: RateLimiter;
  /** Per client IP, for register and login. */
  readonly authRateLimiter: RateLimiter;
  readonly accounts: Accounts;
  readonly usage: Pick<CreditHistory, 'list' | 'spentSince' | 'summary'>;
  readonly checkouts: Pick<Checkouts, 'get' | 'purchase' | 'complete' | 'paymentMode'>;
  readonly stripeEvents: Pick<StripeEvents, 'handle'>;
  /**
   * Paid requests: a hold of the price, settled on success (a cached answer: the price charged at
   * once); the hold while a job is sized.
   */
  readonly charges: Pick<RequestCharges, 'charge' | 'chargeAnswer' | 'whileSizing' | 'ofJob'>;
  readonly jobs: {
    readonly service: Pick<
      JobService,
      'submit' | 'list' | 'getReadable' | 'cancel' | 'refreshGauges' | 'pollAnswer' | 'resultOf'
    >;
    /** Slices of a job's results (a crawl's pages, a batch's videos). */
    readonly items: Pick<JobItems, 'page'>;
    /** The kinds' rows of the price table (/docs/reference). */
    readonly registry: Pick<JobRegistry, 'prices'>;
  };
  /** Checks a caller's URLs (pages, webhooks) the way outbound requests are checked. */
  readonly fetcher: Pick<SafeFetcher, 'checkUrl' | 'checkResolvedUrl'>;
  readonly web: { readonly scraper: Scraper; readonly mapper: Mapper; readonly documents: WebDocuments };
  /** Web search through the operator's SearXNG (503 naming its setting when there is none). */
  readonly webSearch: Pick<WebSearch, 'search' | 'requireConfigured'>;
  readonly youtube: YouTube;
  readonly platforms: Platforms;
  /** Captions, or a speech-recognition job. */
  readonly transcripts: Pick<Transcripts, 'transcript'>;
  /** Transcript translation: the platform's own, else the language model's. */
  readonly translations: Pick<TranscriptTranslations, 'translate'>;
  /** Monitors: scheduled checks of channels, playlists, pages and sites, and their events. */
  readonly monitors: { readonly service: MonitorService };
  /** Files requests and jobs produced (screenshots): stored for an account, read back by their owner. */
  readonly files: Pick<FileStore, 'put' | 'get'>;
  /** The database (and Redis, when configured) answer; else a 503 naming which. */
  readiness(): Promise<{ database: string; redis: string }>;
}
