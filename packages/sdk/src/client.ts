// The Unfurl client: one typed method per API operation, grouped by resource. Each method goes through
// `call(routeName, …)`, so the route table in routes.ts is the whole list of what the client reaches.
import { type CrawlAndWaitOptions, crawlAndWait } from './crawl-wait.js';
import {
  type CrawlPagesOptions,
  type CursorListOptions,
  crawlPages,
  cursorItems,
  type ListJobsOptions,
  listJobs,
  type WaitOptions,
  waitForJob,
} from './polling.js';
import { fillPath, type RouteName, routes } from './routes.js';
import { type Answer, type CreditHeaders, Transport, type TransportOptions } from './transport.js';
import type {
  Account,
  BatchPoll,
  BatchScrapeBody,
  BatchScrapePoll,
  ChannelMetadata,
  ChannelVideosQuery,
  Checkout,
  Comment,
  CommentsQuery,
  CrawlBody,
  CrawlPoll,
  CreatedKey,
  CreateMonitorBody,
  Credentials,
  CreditPackage,
  DeletedMonitor,
  DescribeBody,
  DescribePoll,
  ExtractBody,
  ExtractPoll,
  Health,
  Job,
  JobAccepted,
  JobKind,
  JobsPage,
  JobsQuery,
  KeySummary,
  LinkMap,
  MapQuery,
  Me,
  MicroblogPost,
  Monitor,
  MonitorChanges,
  MonitorEvent,
  MonitorEventsPage,
  MonitorEventsQuery,
  MonitorsPage,
  MonitorsQuery,
  OcrBody,
  OcrPoll,
  PlaylistMetadata,
  PlaylistVideosQuery,
  PollAnswers,
  PostMetadata,
  Registration,
  RevokedKey,
  RevokedSession,
  ScrapeDocument,
  ScrapeDocumentBody,
  ScrapedPage,
  ScrapeQuery,
  SearchQuery,
  SearchResults,
  Session,
  SessionSummary,
  Transcript,
  TranscriptBatchBody,
  TranscriptPoll,
  TranscriptQuery,
  TranslateQuery,
  UsagePage,
  UsageQuery,
  UsageSummary,
  UsageSummaryQuery,
  VideoBatchBody,
  VideoIdLists,
  VideoMetadata,
  VidsiteTranscriptQuery,
  WebSearchAnswer,
  WebSearchBody,
} from './types.js';

export type UnfurlOptions = TransportOptions;

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface JobRequestOptions extends RequestOptions {
  /** Same key and body within 24 h give the same job (no second hold). */
  idempotencyKey?: string;
}

interface CallSpec {
  params?: Record<string, string>;
  query?: object;
  body?: unknown;
  options?: JobRequestOptions;
  /** A success answer that is not JSON (an Atom feed): its type, asked for in Accept, and read as text. */
  textOf?: string;
  /** A success answer that is bytes (a stored file), read as a Blob; Accept is then any type. */
  blob?: boolean;
}

/** True when a transcript request answered 202: speech recognition runs as a job. */
export const isJobAccepted = (answer: object): answer is JobAccepted =>
  'jobId' in answer && typeof (answer as JobAccepted).jobId === 'string';

export class Unfurl {
  readonly transport: Transport;
  /** The X-Credits-* headers of the last answer that carried them. */
  lastCredits: CreditHeaders | null = null;

  /** Options left out come from UNFURL_API_URL and UNFURL_API_KEY (Node). */
  constructor(options: UnfurlOptions = {}) {
    this.transport = new Transport(options);
  }

  /** The key or session token sent as bearer (settable after login). */
  get apiKey(): string | null {
    return this.transport.apiKey;
  }
  set apiKey(key: string | null) {
    this.transport.apiKey = key;
  }

  /** Calls one route of the table and answers the whole answer (status, body, headers read). */
  async callRaw<T>(name: RouteName, spec: CallSpec = {}): Promise<Answer<T>> {
    const route = routes[name];
    const headers: Record<string, string> = {};
    if (spec.options?.idempotencyKey) headers['idempotency-key'] = spec.options.idempotencyKey;
    if (spec.textOf) headers.accept = spec.textOf;
    if (spec.blob) headers.accept = '*/*';
    const answer = await this.transport.request<T>({
      method: route.method,
      path: fillPath(name, spec.params),
      query: spec.query,
      body: spec.body,
      headers,
      signal: spec.options?.signal,
      ...(spec.textOf && { responseType: 'text' as const }),
      ...(spec.blob && { responseType: 'blob' as const }),
    });
    const c = answer.credits;
    if (c.charged !== null || c.held !== null || c.remaining !== null) this.lastCredits = c;
    return answer;
  }

  async call<T>(name: RouteName, spec: CallSpec = {}): Promise<T> {
    return (await this.callRaw<T>(name, spec)).body;
  }

  // ---- accounts, keys, credits ----

  readonly auth = {
    /** Creates an account: its first API key (shown only here) and 100 free credits. No key needed. */
    register: (credentials: Credentials, options?: RequestOptions) =>
      this.call<Registration>('register', { body: credentials, options }),
    /** A session token usable as bearer for 24 hours. No key needed. */
    login: (credentials: Credentials, options?: RequestOptions) =>
      this.call<Session>('login', { body: credentials, options }),
    /** Ends the session whose token this client sends, on the server (an API key is refused: 403). */
    logout: (options?: RequestOptions) => this.call<RevokedSession>('logout', { options }),
    /** The account's live sessions, never their tokens. */
    sessions: async (options?: RequestOptions) =>
      (await this.call<{ sessions: SessionSummary[] }>('listSessions', { options })).sessions,
    /**
     * Changes the password (the current one is checked); every other login session ends, and every
     * API key too with `{ revokeApiKeys: true }`.
     */
    changePassword: (
      currentPassword: string,
      newPassword: string,
      options?: RequestOptions & { revokeApiKeys?: boolean },
    ) => {
      const { revokeApiKeys, ...rest } = options ?? {};
      return this.call<{ changed: boolean; sessionsEnded: number; apiKeysRevoked: number }>(
        'changePassword',
        {
          body: { currentPassword, newPassword, ...(revokeApiKeys !== undefined && { revokeApiKeys }) },
          options: rest,
        },
      );
    },
    /** Ends one of the account's sessions. */
    revokeSession: (sessionId: string, options?: RequestOptions) =>
      this.call<RevokedSession>('revokeSession', { params: { session_id: sessionId }, options }),
  };

  readonly keys = {
    create: (name: string, options?: RequestOptions) =>
      this.call<CreatedKey>('createKey', { body: { name }, options }),
    list: async (options?: RequestOptions) =>
      (await this.call<{ keys: KeySummary[] }>('listKeys', { options })).keys,
    revoke: (keyId: string, options?: RequestOptions) =>
      this.call<RevokedKey>('revokeKey', { params: { key_id: keyId }, options }),
  };

  readonly account = {
    get: (options?: RequestOptions) => this.call<Account>('account', { options }),
    /** One page of credit transactions, newest first. */
    usage: (query: UsageQuery = {}, options?: RequestOptions) =>
      this.call<UsagePage>('usage', { query, options }),
    /** Credits spent, bought and granted per hour or day and per operation, from the ledger's sums. */
    usageSummary: (query: UsageSummaryQuery = {}, options?: RequestOptions) =>
      this.call<UsageSummary>('usageSummary', { query, options }),
    /** A new webhook signing secret; the old one stops signing at once. */
    rotateWebhookSecret: (options?: RequestOptions) =>
      this.call<{ webhookSecret: string }>('rotateWebhookSecret', { options }),
    /** The hosted service's account shape: credits used this month and the most there are. */
    me: (options?: RequestOptions) => this.call<Me>('me', { options }),
  };

  readonly credits = {
    /** Packages on sale. No key needed. */
    packages: async (options?: RequestOptions) =>
      (await this.call<{ packages: CreditPackage[] }>('packages', { options })).packages,
    /** Starts buying a package: open the answer's checkoutUrl. */
    purchase: (packageId: string, options?: RequestOptions) =>
      this.call<Checkout>('purchase', { body: { package_id: packageId }, options }),
  };

  // ---- jobs ----

  readonly files = {
    /**
     * A file one of your requests or jobs produced (a screenshot), by its id (the last part of the
     * `url` the answer gave): its bytes as a Blob whose `type` is the file's. Readable until it
     * expires, with the key of the account that made it; free.
     */
    get: (fileId: string, options?: RequestOptions) =>
      this.call<Blob>('file', { params: { fileId }, options, blob: true }),
  };

  readonly jobs = {
    /** Every job, newest first, fetched a page at a time as the loop goes on. */
    list: (options: ListJobsOptions = {}) => listJobs(this.transport, options),
    /** One page of /v1/jobs. */
    page: (query: JobsQuery = {}, options?: RequestOptions) =>
      this.call<JobsPage>('listJobs', { query, options }),
    /** A job's summary and its result. */
    get: (jobId: string, options?: RequestOptions) =>
      this.call<Job>('getJob', { params: { jobId }, options }),
    /** The same as `cancelJob`. */
    cancel: (jobId: string, options?: RequestOptions) => this.cancelJob(jobId, options),
  };

  /**
   * Cancels a queued or running job: it stops within a second or two and its status becomes
   * `cancelled` (a crawl keeps, and is billed for, the pages it had; the rest of the hold comes back).
   * Answers the job's summary: `cancelled`, or still `active` for a moment when its worker has not
   * confirmed yet. A job that has already ended rejects with UnfurlError `conflict` (409).
   */
  cancelJob(jobId: string, options?: RequestOptions): Promise<Job> {
    return this.call<Job>('cancelJob', { params: { jobId }, options });
  }

  /**
   * Polls the route of the job's kind until it ends; rejects on failure, timeout or abort. The
   * answer's type follows `kind` when given, or the type argument (`waitForJob<'ocr'>(id)`) when the
   * kind is left for the server to say.
   */
  waitForJob<K extends JobKind = JobKind>(
    jobId: string,
    options: WaitOptions<K> = {},
  ): Promise<PollAnswers[K]> {
    return waitForJob(this.transport, jobId, options);
  }

  /** Every page of a crawl as it arrives, following `next`; ends when the crawl has ended. */
  crawlPages(jobId: string, options?: CrawlPagesOptions) {
    return crawlPages(this.transport, jobId, options);
  }

  // ---- monitors ----

  readonly monitors = {
    /**
     * Starts watching a channel or playlist (new videos), a page or a site (changes). The first check
     * runs at once and only sets the baseline; later ones record events (and send them to `webhookUrl`).
     */
    create: (body: CreateMonitorBody, options?: RequestOptions) =>
      this.call<Monitor>('createMonitor', { body, options }),
    /** Every monitor of the caller, newest first, fetched a page at a time as the loop goes on. */
    list: (options: CursorListOptions = {}): AsyncGenerator<Monitor, void, undefined> =>
      cursorItems(
        (query, signal) => this.call<MonitorsPage>('listMonitors', { query, options: { signal } }),
        (page) => page.monitors,
        options,
      ),
    /** One page of /v1/monitors. */
    page: (query: MonitorsQuery = {}, options?: RequestOptions) =>
      this.call<MonitorsPage>('listMonitors', { query, options }),
    /** A monitor with its last checks. */
    get: (id: string, options?: RequestOptions) =>
      this.call<Monitor>('getMonitor', { params: { id }, options }),
    /** Changes a monitor (null clears a field); answers it as it is now. */
    update: (id: string, changes: MonitorChanges, options?: RequestOptions) =>
      this.call<Monitor>('updateMonitor', { params: { id }, body: changes, options }),
    /** No more checks until resumed (records a `monitor.paused` event). */
    pause: (id: string, options?: RequestOptions) => this.monitors.update(id, { paused: true }, options),
    /** Checks again on its schedule (records a `monitor.resumed` event). */
    resume: (id: string, options?: RequestOptions) => this.monitors.update(id, { paused: false }, options),
    /** A new feed URL in the answer's `feedUrl`; the old one stops working at once. */
    rotateFeedToken: (id: string, options?: RequestOptions) =>
      this.monitors.update(id, { rotateFeedToken: true }, options),
    /** Ends a monitor; its events are deleted with it. */
    delete: (id: string, options?: RequestOptions) =>
      this.call<DeletedMonitor>('deleteMonitor', { params: { id }, options }),
    /**
     * Checks now: a `monitor_check` job (a check already running answers its own id). Wait for it
     * with `waitForJob(jobId, { kind: 'monitor_check' })`.
     */
    check: (id: string, options?: RequestOptions) =>
      this.call<JobAccepted>('checkMonitor', { params: { id }, options }),
    /** Every event of a monitor, newest first, fetched a page at a time as the loop goes on. */
    events: (id: string, options: CursorListOptions = {}): AsyncGenerator<MonitorEvent, void, undefined> =>
      cursorItems(
        (query, signal) =>
          this.call<MonitorEventsPage>('monitorEvents', { params: { id }, query, options: { signal } }),
        (page) => page.events,
        options,
      ),
    /** One page of a monitor's events, with the state of each one's webhook. */
    eventsPage: (id: string, query: MonitorEventsQuery = {}, options?: RequestOptions) =>
      this.call<MonitorEventsPage>('monitorEvents', { params: { id }, query, options }),
    /**
     * The monitor's Atom feed as XML text. `token` is the `token` of its `feedUrl` (the feed needs no
     * key: the token authorises it); fetched from this client's server, whatever `feedUrl`'s host.
     */
    feed: (id: string, token: string, options?: RequestOptions) =>
      this.call<string>('monitorFeed', {
        params: { id },
        query: { token },
        options,
        textOf: 'application/atom+xml',
      }),
  };

  // ---- transcripts ----

  /** 200: the transcript; 202: `{jobId}` while speech recognition runs (see isJobAccepted, waitForJob). */
  transcript(query: TranscriptQuery, options?: RequestOptions) {
    return this.call<Transcript | JobAccepted>('transcript', { query, options });
  }

  /** The poll answer of a transcript job. */
  transcriptJob(jobId: string, options?: RequestOptions) {
    return this.call<TranscriptPoll>('transcriptPoll', { params: { jobId }, options });
  }

  /** A post's or video's metadata in one shape, on any platform, from its URL. */
  metadata(url: string, options?: RequestOptions) {
    return this.call<PostMetadata>('metadata', { query: { url }, options });
  }

  // ---- the video-sharing platform ----

  readonly vidsite = {
    /** The platform twin of transcript(): by url, videoId or id. */
    transcript: (query: VidsiteTranscriptQuery, options?: RequestOptions) =>
      this.call<Transcript | JobAccepted>('vidsiteTranscript', { query, options }),
    /** The transcript translated into `lang`: the platform's translation, else a language model's. */
    translate: (query: TranslateQuery, options?: RequestOptions) =>
      this.call<Transcript>('translate', { query, options }),
    /** A playlist's details (id or a URL with list=). */
    playlist: (id: string, options?: RequestOptions) =>
      this.call<PlaylistMetadata>('playlist', { query: { id }, options }),
    /** Videos, channels and playlists; 1 credit per page of results fetched. */
    search: (query: SearchQuery, options?: RequestOptions) =>
      this.call<SearchResults>('search', { query, options }),
    video: (id: string, options?: RequestOptions) =>
      this.call<VideoMetadata>('video', { query: { id }, options }),
    /** A channel id (UC…), @handle or URL. */
    channel: (id: string, options?: RequestOptions) =>
      this.call<ChannelMetadata>('channel', { query: { id }, options }),
    comments: async (query: CommentsQuery, options?: RequestOptions) =>
      (await this.call<{ comments: Comment[] }>('comments', { query, options })).comments,
    channelVideos: (query: ChannelVideosQuery, options?: RequestOptions) =>
      this.call<VideoIdLists>('channelVideos', { query, options }),
    playlistVideos: (query: PlaylistVideosQuery, options?: RequestOptions) =>
      this.call<VideoIdLists>('playlistVideos', { query, options }),
    transcriptBatch: (body: TranscriptBatchBody, options?: JobRequestOptions) =>
      this.call<JobAccepted>('transcriptBatch', { body, options }),
    videoBatch: (body: VideoBatchBody, options?: JobRequestOptions) =>
      this.call<JobAccepted>('videoBatch', { body, options }),
    /** The poll answer of a batch job: results from `skip`. */
    batch: (jobId: string, query: { skip?: number } = {}, options?: RequestOptions) =>
      this.call<BatchPoll>('batchPoll', { params: { jobId }, query, options }),
  };

  // ---- microblog ----

  readonly microblog = {
    /** A post's metadata from its URL (either hostname of the platform). */
    post: (url: string, options?: RequestOptions) =>
      this.call<MicroblogPost>('microblogPost', { query: { url }, options }),
  };

  // ---- web ----

  readonly web = {
    scrape: (query: ScrapeQuery, options?: RequestOptions) =>
      this.call<ScrapedPage>('scrape', { query, options }),
    map: (query: MapQuery, options?: RequestOptions) => this.call<LinkMap>('map', { query, options }),
    /** A page in the formats asked for (markdown, html, links, images, screenshot, json, summary…). */
    scrapeDocument: (body: ScrapeDocumentBody, options?: RequestOptions) =>
      this.call<ScrapeDocument>('scrapeDocument', { body, options }),
    /** Scrapes up to 1,000 pages with the same options (a job): poll with batchScrapeStatus. */
    batchScrape: (body: BatchScrapeBody, options?: JobRequestOptions) =>
      this.call<JobAccepted>('batchScrape', { body, options }),
    /** One poll answer of a batch scrape: results from `skip`, and `next` while more remain. */
    batchScrapeStatus: (jobId: string, query: { skip?: number } = {}, options?: RequestOptions) =>
      this.call<BatchScrapePoll>('batchScrapePoll', { params: { jobId }, query, options }),
    /** A web search through the server's SearXNG: up to `limit` results, 1 credit. */
    search: (body: WebSearchBody, options?: RequestOptions) =>
      this.call<WebSearchAnswer>('webSearch', { body, options }),
    crawl: (body: CrawlBody, options?: JobRequestOptions) =>
      this.call<JobAccepted>('crawl', { body, options }),
    /**
     * Starts a crawl and waits for it to end: the final poll answer with every page (not paged).
     * Rejects with `job_failed` or `job_timeout` (default 10 minutes) like waitForJob.
     */
    crawlAndWait: (body: CrawlBody, options: CrawlAndWaitOptions = {}) =>
      crawlAndWait(this.transport, body, options),
    /** One poll answer of a crawl: pages from `skip`, and `next` while more remain. */
    crawlStatus: (jobId: string, query: { skip?: number } = {}, options?: RequestOptions) =>
      this.call<CrawlPoll>('crawlPoll', { params: { jobId }, query, options }),
  };

  // ---- video AI ----

  readonly video = {
    ocr: (body: OcrBody, options?: JobRequestOptions) => this.call<JobAccepted>('ocr', { body, options }),
    ocrStatus: (jobId: string, options?: RequestOptions) =>
      this.call<OcrPoll>('ocrPoll', { params: { jobId }, options }),
    describe: (body: DescribeBody, options?: JobRequestOptions) =>
      this.call<JobAccepted>('describe', { body, options }),
    describeStatus: (jobId: string, options?: RequestOptions) =>
      this.call<DescribePoll>('describePoll', { params: { jobId }, options }),
  };

  /** Structured data from a video: give a prompt, a JSON schema, or both. */
  extract(body: ExtractBody, options?: JobRequestOptions) {
    return this.call<JobAccepted>('extract', { body, options });
  }

  extractStatus(jobId: string, options?: RequestOptions) {
    return this.call<ExtractPoll>('extractPoll', { params: { jobId }, options });
  }

  // ---- system ----

  health(options?: RequestOptions) {
    return this.call<Health>('health', { options });
  }

  ready(options?: RequestOptions) {
    return this.call<Health>('ready', { options });
  }
}
