// The Unfurl client: one typed method per API operation, grouped by resource. Each method goes through
// `call(routeName, …)`, so the route table in routes.ts is the whole list of what the client reaches.
import {
  type CrawlPagesOptions,
  crawlPages,
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
  ChannelMetadata,
  ChannelVideosQuery,
  Checkout,
  Comment,
  CommentsQuery,
  CrawlBody,
  CrawlPoll,
  CreatedKey,
  Credentials,
  CreditPackage,
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
  MicroblogPost,
  OcrBody,
  OcrPoll,
  PlaylistVideosQuery,
  PollAnswers,
  Registration,
  RevokedKey,
  RevokedSession,
  ScrapedPage,
  ScrapeQuery,
  Session,
  SessionSummary,
  Transcript,
  TranscriptBatchBody,
  TranscriptPoll,
  TranscriptQuery,
  UsagePage,
  UsageQuery,
  VideoBatchBody,
  VideoIdLists,
  VideoMetadata,
  VidsiteTranscriptQuery,
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
}

/** True when a transcript request answered 202: speech recognition runs as a job. */
export const isJobAccepted = (answer: object): answer is JobAccepted =>
  'jobId' in answer && typeof (answer as JobAccepted).jobId === 'string';

export class Unfurl {
  readonly transport: Transport;
  /** The X-Credits-* headers of the last answer that carried them. */
  lastCredits: CreditHeaders | null = null;

  constructor(options: UnfurlOptions) {
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
    const answer = await this.transport.request<T>({
      method: route.method,
      path: fillPath(name, spec.params),
      query: spec.query,
      body: spec.body,
      headers,
      signal: spec.options?.signal,
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

  readonly jobs = {
    /** Every job, newest first, fetched a page at a time as the loop goes on. */
    list: (options: ListJobsOptions = {}) => listJobs(this.transport, options),
    /** One page of /v1/jobs. */
    page: (query: JobsQuery = {}, options?: RequestOptions) =>
      this.call<JobsPage>('listJobs', { query, options }),
    /** A job's summary and its result. */
    get: (jobId: string, options?: RequestOptions) =>
      this.call<Job>('getJob', { params: { jobId }, options }),
  };

  /** Polls the route of the job's kind until it ends; rejects on failure, timeout or abort. */
  waitForJob<K extends JobKind>(
    jobId: string,
    options: WaitOptions<K> & { kind: K },
  ): Promise<PollAnswers[K]>;
  waitForJob(jobId: string, options?: WaitOptions): Promise<PollAnswers[JobKind]>;
  waitForJob(jobId: string, options: WaitOptions = {}) {
    return waitForJob(this.transport, jobId, options);
  }

  /** Every page of a crawl as it arrives, following `next`; ends when the crawl has ended. */
  crawlPages(jobId: string, options?: CrawlPagesOptions) {
    return crawlPages(this.transport, jobId, options);
  }

  // ---- transcripts ----

  /** 200: the transcript; 202: `{jobId}` while speech recognition runs (see isJobAccepted, waitForJob). */
  transcript(query: TranscriptQuery, options?: RequestOptions) {
    return this.call<Transcript | JobAccepted>('transcript', { query, options });
  }

  /** The poll answer of a transcript job. */
  transcriptJob(jobId: string, options?: RequestOptions) {
    return this.call<TranscriptPoll>('transcriptPoll', { params: { jobId }, options });
  }

  // ---- the video-sharing platform ----

  readonly vidsite = {
    /** The platform twin of transcript(): by url, videoId or id. */
    transcript: (query: VidsiteTranscriptQuery, options?: RequestOptions) =>
      this.call<Transcript | JobAccepted>('vidsiteTranscript', { query, options }),
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
    crawl: (body: CrawlBody, options?: JobRequestOptions) =>
      this.call<JobAccepted>('crawl', { body, options }),
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
