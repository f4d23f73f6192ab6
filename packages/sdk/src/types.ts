// The shapes the API answers and accepts (interface spec + DESIGN §4). Timestamps of our own are Unix
// milliseconds; fields a platform may not expose are null.

/** `cancelled`: its owner stopped it (`cancelJob`); what it had done by then is kept and billed. */
export type JobStatus = 'queued' | 'active' | 'completed' | 'failed' | 'cancelled';

// ---- accounts, keys, credits ----

export interface Credentials {
  email: string;
  password: string;
}

export interface Registration {
  accountId: string;
  email: string;
  /** The first API key; shown only in this answer. */
  apiKey: string;
  keyId: string;
  credits: number;
}

export interface Session {
  accountId: string;
  email: string;
  /** A `uf_sess_…` token usable as the bearer for 24 hours. */
  token: string;
  expiresAt: number;
}

/** A live login session as listed: never its token. `current` marks the one making the request. */
export interface SessionSummary {
  id: string;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number;
  current: boolean;
}

export interface CreatedKey {
  id: string;
  name: string;
  /** The secret; shown only in this answer. */
  key: string;
  prefix: string;
  createdAt: number;
}

export interface KeySummary {
  id: string;
  name: string;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface RevokedKey {
  id: string;
  revoked: boolean;
  revokedAt: number;
}

/** What logout and revoking a session answer. */
export type RevokedSession = RevokedKey;

export interface Account {
  id: string;
  email: string;
  credits: number;
  createdAt: number;
  webhookSecret: string;
}

export type TransactionType =
  | 'grant'
  | 'purchase'
  | 'settled'
  | 'hold'
  | 'release'
  | 'clawback'
  | (string & {});

/** The account in the hosted service's shape (GET /v1/me). */
export interface Me {
  organizationId: string;
  plan: string;
  maxCredits: number;
  usedCredits: number;
}

export interface CreditTransaction {
  id: string;
  amount: number;
  type: TransactionType;
  description: string;
  /** What the credits were for (scrape, crawl, transcript, …); '' for grants, purchases and clawbacks. */
  operation: string;
  /** A job (`job_…`), a synchronous request (`req_…`) or a purchase's checkout (`chk_…`); null for grants and clawbacks. */
  job_id: string | null;
  /** What `job_id` names; null when it is null. */
  ref_kind: 'job' | 'request' | 'checkout' | null;
  created_at: number;
}

export interface Page {
  limit: number;
  offset: number;
  total: number;
  /** Pass as `cursor` for the page after this one (same cost at any depth); null on the last page. */
  next: string | null;
}

export interface UsagePage extends Page {
  transactions: CreditTransaction[];
}

export interface UsageQuery {
  limit?: number;
  offset?: number;
  type?: TransactionType;
  /** The `next` of a previous page (same `type`). */
  cursor?: string;
}

export interface UsageSummaryQuery {
  /** Unix ms (default: 30 days before `to`); rounded down to a bucket start. */
  from?: number;
  /** Unix ms, exclusive (default: now); rounded up to a bucket end. */
  to?: number;
  bucket?: 'hour' | 'day';
}

/** Credit flows of a bucket or a range. */
export interface CreditFlows {
  spent: number;
  bought: number;
  granted: number;
  clawedBack: number;
  /** Held and not released within the range (in-flight work). */
  held: number;
  /** granted + bought − spent − clawedBack − held: how the balance moved. */
  net: number;
}

export interface UsageSummary {
  from: number;
  to: number;
  bucket: 'hour' | 'day';
  totals: CreditFlows;
  buckets: Array<CreditFlows & { start: number; spentByOperation: Record<string, number> }>;
  operations: Array<{ operation: string; spent: number; held: number; entries: number }>;
}

export interface CreditPackage {
  id: string;
  credits: number;
  priceUsd: string;
}

export interface Checkout {
  id: string;
  checkoutUrl: string;
  packageId: string;
  credits: number;
  priceUsd: string;
}

// ---- jobs ----

export interface JobAccepted {
  jobId: string;
}

export interface JobSummary {
  id: string;
  /**
   * The job's kind (a key of PollAnswers): transcript, transcript_batch, video_batch, ocr, describe,
   * extract, crawl, monitor_check.
   */
  queue: string;
  /** The URL the job was started on (null for batches of ids). */
  url: string | null;
  status: JobStatus;
  createdAt: number;
  completedAt: number | null;
  durationMs: number | null;
  error: string | null;
  attempts: number;
  maxAttempts: number;
  credits: number;
}

export interface Job extends JobSummary {
  result: unknown;
}

export interface JobsPage extends Page {
  jobs: JobSummary[];
}

export interface JobsQuery {
  status?: JobStatus;
  limit?: number;
  offset?: number;
  /** The `next` of a previous page (same `status`). */
  cursor?: string;
}

/** Every job-creating body may name a webhook called when the job ends. */
export interface WithWebhook {
  webhookUrl?: string;
}

// ---- transcripts and the video-sharing platform ----

export interface TranscriptChunk {
  text: string;
  offset: number;
  duration: number;
  lang: string;
  /**
   * Only with `chapters: true` on the video-sharing platform: the chapter the chunk starts in (null:
   * the video has none, or the chunk comes before the first).
   */
  chapter?: string | null;
}

/** A part of a video (ms); the last ends at the video's duration. */
export interface VideoChapter {
  title: string;
  startMs: number;
  endMs: number;
}

export interface Transcript {
  content: string | TranscriptChunk[];
  lang: string;
  availableLangs: string[];
}

export type TranscriptMode = 'native' | 'auto' | 'generate';

export interface TranscriptOptions {
  lang?: string;
  /** One string instead of chunks. */
  text?: boolean;
  /** Most characters per chunk (50–10000). */
  chunkSize?: number;
  /**
   * Video-sharing platform captions: chunks say their chapter (merged within a chapter only), the
   * text gets each chapter's title before its text. No effect elsewhere or on speech recognition.
   */
  chapters?: boolean;
  mode?: TranscriptMode;
}

export interface TranscriptQuery extends TranscriptOptions {
  url: string;
}

/** The platform twin takes exactly one of url, videoId or id. */
export interface VidsiteTranscriptQuery extends TranscriptOptions {
  url?: string;
  videoId?: string;
  id?: string;
}

/** Exactly one of url, videoId or id, and the language to translate into. */
export interface TranslateQuery {
  url?: string;
  videoId?: string;
  id?: string;
  lang: string;
  text?: boolean;
  chunkSize?: number;
}

export interface TranscriptPoll {
  status: JobStatus;
  data: Transcript | null;
  error: string | null;
}

export interface VideoMetadata {
  id: string;
  title: string | null;
  description: string | null;
  duration: number | null;
  channel: { id: string | null; name: string | null } | null;
  tags: string[] | null;
  thumbnail: string | null;
  uploadDate: string | null;
  viewCount: number | null;
  likeCount: number | null;
  isLive: boolean | null;
  transcriptLanguages: string[] | null;
  /** In order; [] when the video has none (or is live). */
  chapters: VideoChapter[];
}

export interface PlaylistMetadata {
  id: string;
  title: string | null;
  description: string | null;
  videoCount: number | null;
  viewCount: number | null;
  lastUpdated: string | null;
  thumbnail: string | null;
  channel: { id: string | null; name: string | null } | null;
}

export interface SearchQuery {
  query?: string;
  type?: 'all' | 'video' | 'channel' | 'playlist' | 'movie';
  uploadDate?: 'all' | 'hour' | 'today' | 'week' | 'month' | 'year';
  duration?: 'all' | 'short' | 'medium' | 'long';
  sortBy?: 'relevance' | 'rating' | 'date' | 'views';
  features?: string[];
  /** Follow pages until this many results (1–1000); without it, one page and a nextPageToken. */
  limit?: number;
  nextPageToken?: string;
}

export interface SearchResults {
  query: string;
  /** Videos, channels and playlists, each with its `type`. */
  results: Array<{ type: string; [field: string]: unknown }>;
  totalResults: number | null;
  nextPageToken?: string | null;
}

/** One shape for a post or video on any platform (GET /v1/metadata). */
export interface PostMetadata {
  platform: string;
  type: 'video' | 'image' | 'carousel' | 'post';
  id: string;
  url: string;
  title: string | null;
  description: string | null;
  author: {
    username: string | null;
    displayName: string | null;
    avatarUrl: string | null;
    verified: boolean | null;
  };
  stats: { views: number | null; likes: number | null; comments: number | null; shares: number | null };
  media: { type: string; [field: string]: unknown };
  tags: string[];
  createdAt: string | null;
  additionalData: Record<string, unknown>;
}

export interface ChannelMetadata {
  id: string;
  name: string | null;
  handle: string | null;
  description: string | null;
  url: string | null;
  subscriberCount: number | null;
  videoCount: number | null;
  viewCount: number | null;
  thumbnail: string | null;
  banner: string | null;
}

export interface VideoIdLists {
  videoIds: string[];
  shortIds: string[];
  liveIds: string[];
}

export interface Comment {
  id: string;
  text: string;
  author: { name: string | null; channelId: string | null; thumbnail: string | null };
  likeCount: number | null;
  replyCount: number | null;
  publishedAt: string | null;
  isPinned: boolean;
  isHearted: boolean;
}

export interface CommentsQuery {
  id: string;
  limit?: number;
  sort?: 'top' | 'newest';
}

export interface ChannelVideosQuery {
  id: string;
  type?: 'all' | 'video' | 'short' | 'live';
  limit?: number;
}

export interface PlaylistVideosQuery {
  id: string;
  limit?: number;
}

/** Exactly one of videoIds, playlistId or channelId. */
export interface VideoBatchBody extends WithWebhook {
  videoIds?: string[];
  playlistId?: string;
  channelId?: string;
  limit?: number;
}

export interface TranscriptBatchBody extends VideoBatchBody {
  lang?: string;
  text?: boolean;
  chunkSize?: number;
}

export interface BatchResult {
  videoId: string;
  transcript?: Transcript;
  video?: VideoMetadata;
  error?: string;
  message?: string;
}

export interface BatchPoll {
  status: JobStatus;
  results: BatchResult[];
  stats: { total: number; succeeded: number; failed: number };
  completedAt: number | null;
  error: string | null;
  /** Present while more results remain: the URL of the next slice (`?skip=N`). */
  next?: string;
}

// ---- microblog ----

export interface MicroblogPost {
  id: string;
  url: string;
  text: string | null;
  author: {
    username: string | null;
    displayName: string | null;
    profileImageUrl: string | null;
    verified: boolean | null;
  } | null;
  stats: {
    likes: number | null;
    retweets: number | null;
    replies: number | null;
    views: number | null;
    bookmarks: number | null;
  } | null;
  createdAt: string | null;
  media: { type: string; url: string }[] | null;
  quotedTweet: {
    id: string | null;
    text: string | null;
    author: { username: string | null; displayName: string | null } | null;
  } | null;
}

// ---- web ----

export interface ScrapedPage {
  url: string;
  content: string;
  name: string | null;
  description: string | null;
  ogUrl: string | null;
  ogImage?: string | null;
  countCharacters: number;
  urls: string[];
}

export interface ScrapeQuery {
  url: string;
  noLinks?: boolean;
  /** Preferred language (BCP 47), sent as Accept-Language. */
  lang?: string;
  render?: 'auto' | 'always' | 'never';
}

export interface MapQuery {
  url: string;
  limit?: number;
  sitemap?: 'include' | 'skip' | 'only';
  /** Rank the URLs by relevance to this query (≤ 200 characters); URLs matching nothing come last. */
  search?: string;
  /** List URLs without their query (default true). */
  ignoreQueryParameters?: boolean;
  /** www./bare, http/https, trailing slash, index.html|htm|php twins listed once (default true). */
  deduplicateSimilarURLs?: boolean;
  /** Absent: every host; false: the start URL's host only; true: it and its subdomains. */
  includeSubdomains?: boolean;
}

export interface LinkMap {
  urls: string[];
}

/** POST /v1/web/search's body: a search through the server's SearXNG. */
export interface WebSearchBody {
  /** 1–500 characters; SearXNG's syntax (`site:`, `!bang`) works. */
  query: string;
  /** Most results, 1–50 (default 10); one page of SearXNG's may hold fewer. */
  limit?: number;
  /** BCP 47 (en, pt-BR). */
  lang?: string;
  /** ISO 3166-1 alpha-2, the region of `lang` (needs `lang`). */
  country?: string;
  timeRange?: 'day' | 'week' | 'month' | 'year';
  categories?: Array<'general' | 'news' | 'images' | 'videos' | 'science' | 'it'>;
  /** SearXNG's page of results, from 1 (1–50). */
  page?: number;
  /** Also scrape each result's page (each billed as that scrape). */
  scrapeOptions?: ScrapeOptions;
}

export interface WebSearchResult {
  url: string;
  title: string;
  description: string;
  engines: string[];
  category: string | null;
  /** ISO 8601, as the engine gave it. */
  publishedDate: string | null;
  thumbnail: string | null;
  /** The image itself (image results). */
  imageUrl: string | null;
}

export interface WebSearchAnswer {
  query: string;
  results: WebSearchResult[];
  answers: string[];
  suggestions: string[];
  corrections: string[];
  /** Engines that failed this time: the results are what the others found. */
  unresponsiveEngines: Array<{ engine: string; error: string }>;
}

export interface CrawlBody extends WithWebhook {
  url: string;
  limit?: number;
  maxDepth?: number;
  includePaths?: string[];
  excludePaths?: string[];
  allowSubdomains?: boolean;
  entireDomain?: boolean;
  /** Firecrawl's name for entireDomain; both may be given only if they agree. */
  crawlEntireDomain?: boolean;
  /** skip (default): links only; include: the sitemap URLs in scope too; only: those alone. */
  sitemap?: 'skip' | 'include' | 'only';
  /** URLs differing only in their query are one page (default false). */
  ignoreQueryParameters?: boolean;
  /** www./bare, http/https, trailing slash, index.html|htm|php twins are one page (default true). */
  deduplicateSimilarURLs?: boolean;
  /** Seconds between requests to a host, 0–60 (default 0); delay × limit ≤ 3000. */
  delay?: number;
  /** Most pages fetched at once, 1 to the server's crawl concurrency (default: that). */
  maxConcurrency?: number;
}

export interface CrawlPoll {
  /** `scraping` until the crawl ends. */
  status: 'scraping' | 'completed' | 'failed' | 'cancelled';
  pages: ScrapedPage[];
  /** Pages scraped so far. */
  total: number;
  failures: { url: string; error?: string; message?: string; status?: number }[];
  error: string | null;
  next?: string;
}

/** A page action (rendered pages): see the server's ScrapeOptions in /openapi.json. */
export type PageAction =
  | { type: 'wait'; milliseconds?: number; selector?: string }
  | { type: 'click'; selector: string; all?: boolean }
  | { type: 'write'; text: string }
  | { type: 'press'; key: string }
  | { type: 'scroll'; direction?: 'up' | 'down'; selector?: string }
  | { type: 'screenshot'; fullPage?: boolean }
  | { type: 'scrape' }
  | { type: 'executeJavascript'; script: string };

export type ScrapeFormat =
  | 'markdown'
  | 'html'
  | 'rawHtml'
  | 'links'
  | 'images'
  | 'screenshot'
  | 'screenshot@fullPage'
  | 'summary'
  | { type: 'json'; prompt?: string; schema?: Record<string, unknown> }
  | { type: 'screenshot'; fullPage?: boolean; inline?: boolean };

export interface ScrapeOptions {
  /** Default ['markdown']. */
  formats?: ScrapeFormat[];
  onlyMainContent?: boolean;
  includeTags?: string[];
  excludeTags?: string[];
  waitFor?: number;
  mobile?: boolean;
  timeout?: number;
  maxAge?: number;
  actions?: PageAction[];
  render?: 'auto' | 'always' | 'never';
  noLinks?: boolean;
  lang?: string;
  pdfMode?: 'auto' | 'text' | 'ocr';
  maxPages?: number;
}

export interface ScrapeDocumentBody extends ScrapeOptions {
  url: string;
}

/** POST /v1/web/scrape's answer: the formats asked for, and the page's metadata. */
export interface ScrapeDocument {
  url: string;
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: { url: string; text: string; internal: boolean }[];
  images?: { url: string; alt: string | null }[];
  /** The stored PNG's URL (fetch it with files.get) or a data: URL. */
  screenshot?: string;
  json?: unknown;
  summary?: string;
  actions?: {
    screenshots: string[];
    scrapes: { url: string; html: string }[];
    javascriptReturns: { type: string; value: unknown }[];
  };
  metadata: {
    title: string | null;
    description: string | null;
    language: string | null;
    ogUrl: string | null;
    ogImage: string | null;
    sourceURL: string;
    url: string;
    statusCode: number;
    pdfPages?: { total: number; read: number; ocr: number };
    cacheState: 'hit' | 'miss';
    cachedAt: string;
  };
  warning?: string;
}

export interface BatchScrapeBody extends WithWebhook {
  /** 1–1000 pages; invalid and repeated ones are reported, not fetched. */
  urls: string[];
  scrapeOptions?: ScrapeOptions;
}

export type BatchScrapeResult =
  | { url: string; document: ScrapeDocument }
  | { url: string; error: { error: string; message: string }; errorCode: string };

export interface BatchScrapePoll {
  status: JobStatus;
  results: BatchScrapeResult[];
  total: number;
  stats: { total: number; succeeded: number; failed: number; skipped: number } | null;
  error: string | null;
  next?: string;
}

// ---- video AI ----

export interface OcrBody extends WithWebhook {
  url: string;
  format?: 'json' | 'text' | 'srt' | 'vtt';
}

export interface OcrSegment {
  text: string;
  startMs: number;
  endMs: number;
}

export interface OcrPoll {
  /** `pending` while queued. */
  status: 'pending' | JobStatus;
  attempts: number;
  maxAttempts: number;
  durationMs: number | null;
  error: string | null;
  text: OcrSegment[] | null;
  format: string;
  content: string | null;
}

export interface DescribeBody extends WithWebhook {
  url: string;
  mode?: 'describe' | 'ocr';
  prompt?: string;
  /** 1–20 */
  maxFrames?: number;
  /** 64–2048 */
  maxResolution?: number;
  includeTranscript?: boolean;
}

export interface DescribeResult {
  description?: string;
  frames?: ({ timeMs: number } & Record<string, unknown>)[];
  transcript?: unknown;
  [key: string]: unknown;
}

export interface DescribePoll {
  status: JobStatus;
  data: DescribeResult | null;
  error: string | null;
}

/** At least one of prompt and schema. */
export interface ExtractBody extends WithWebhook {
  url: string;
  prompt?: string;
  schema?: Record<string, unknown>;
}

export interface ExtractPoll {
  status: JobStatus;
  data: Record<string, unknown> | null;
  schema: Record<string, unknown> | null;
  error: { error: string; message: string; details: string | null } | null;
}

// ---- monitors ----

export type MonitorKind = 'channel' | 'playlist' | 'page' | 'site';

/**
 * The options of every kind; each kind takes its own, the others are refused (channel, playlist:
 * transcript, maxVideos; page: render, schema; site: render, limit, scrape, diff).
 */
export interface MonitorOptions {
  /** channel, playlist: each new video comes with its transcript, at its price. */
  transcript?: { mode?: TranscriptMode; lang?: string };
  /** channel, playlist: most new videos one check reports (1–50, default 10). */
  maxVideos?: number;
  /** page, site: render pages in a headless browser (default auto). */
  render?: 'auto' | 'always' | 'never';
  /** page: a JSON Schema; each check also extracts these fields and reports which changed. */
  schema?: Record<string, unknown>;
  /** site: most pages mapped (1–1000, default 100). */
  limit?: number;
  /** site: also scrape each page and report the pages that changed. */
  scrape?: boolean;
  /** site with scrape: each changed page comes with its diff. */
  diff?: boolean;
}

export interface CreateMonitorBody extends MonitorOptions, WithWebhook {
  kind: MonitorKind;
  /** channel: id, @handle or URL; playlist: id or URL; page, site: the page's URL. */
  target: string;
  /** An interval (`15m`, `1h`, `1d`, `PT30M`) or a cron expression (`0 9 * * 1-5`) in `timezone`. */
  every: string;
  /** IANA time zone of a cron `every` (default UTC). */
  timezone?: string;
  name?: string;
}

/** What PATCH changes; null clears a field. `paused` pauses (true) or resumes (false). */
export interface MonitorChanges extends MonitorOptions {
  every?: string;
  timezone?: string | null;
  name?: string | null;
  webhookUrl?: string | null;
  paused?: boolean;
  /** A new feed URL; the old one stops working at once. */
  rotateFeedToken?: boolean;
}

/** One check of a monitor: a `monitor_check` job (see jobs.get, waitForJob). */
export interface MonitorCheck {
  jobId: string;
  status: JobStatus;
  createdAt: number;
  completedAt: number | null;
  cost: number | null;
  error: string | null;
}

export interface Monitor extends MonitorOptions {
  id: string;
  kind: MonitorKind;
  target: string;
  name: string | null;
  every: string;
  timezone: string | null;
  webhookUrl: string | null;
  status: 'active' | 'paused';
  /** `credits`: paused by the server when the balance ran out (it resumes after a top-up). */
  pausedReason: 'user' | 'credits' | null;
  /** Unix ms of the next scheduled check. */
  nextCheckAt: number | null;
  lastCheckAt: number | null;
  /** Checks recorded so far. */
  checks: number;
  /** Events recorded so far. */
  events: number;
  /** Its Atom feed; the URL itself authorises it (rotateFeedToken revokes it). */
  feedUrl: string;
  createdAt: number;
  updatedAt: number;
  /** Only from monitors.get: its last checks, newest first. */
  lastChecks?: MonitorCheck[];
}

export interface MonitorsQuery {
  /** 1–100, default 20. */
  limit?: number;
  /** The `next` of a previous page. */
  cursor?: string;
}

export interface MonitorsPage {
  monitors: Monitor[];
  /** Pass as `cursor` for the page after this one; null on the last page. */
  next: string | null;
}

export interface DeletedMonitor {
  id: string;
  deleted: boolean;
}

/** The state of an event's webhook (null on the event when the monitor has no webhookUrl). */
export interface MonitorEventDelivery {
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: number | null;
}

/** A changed section of a page: its heading path ('' before the first heading), blocks before and after. */
export interface PageSection {
  section: string;
  before: string[];
  after: string[];
}

/** What each event type carries in `data`. */
export interface MonitorEventData {
  'video.new': {
    videoId: string;
    url: string;
    video: VideoMetadata;
    /** With the monitor's `transcript` option: the transcript, or why there is none. */
    transcript?: Record<string, unknown>;
  };
  'page.changed': {
    url: string;
    title: string | null;
    /** A unified diff of the page's Markdown. */
    diff: string;
    sections: PageSection[];
    added: number;
    removed: number;
  };
  'page.gone': { url: string; title: string | null };
  'page.back': { url: string; title: string | null };
  'site.changed': {
    url: string;
    added: string[];
    removed: string[];
    /** Only with `scrape`: the pages whose text changed (with `diff`, each one's diff). */
    changed?: Array<{ url: string; diff?: string; sections?: PageSection[] }>;
  };
  'check.failed': { error: string; message: string };
  'monitor.paused': { reason: 'user' | 'credits' };
  'monitor.resumed': { reason: 'user' | 'credits' };
}

export type MonitorEventType = keyof MonitorEventData;

interface MonitorEventOf<T extends MonitorEventType> {
  id: string;
  type: T;
  createdAt: number;
  /** The check that found it (null for pause and resume). */
  jobId: string | null;
  data: MonitorEventData[T];
  delivery: MonitorEventDelivery | null;
}

/** An event; `type` tells the shape of `data` (switch on it). */
export type MonitorEvent = { [T in MonitorEventType]: MonitorEventOf<T> }[MonitorEventType];

export interface MonitorEventsQuery {
  /** 1–100, default 20. */
  limit?: number;
  /** The `next` of a previous page. */
  cursor?: string;
}

export interface MonitorEventsPage {
  /** Newest first. */
  events: MonitorEvent[];
  next: string | null;
}

// ---- system ----

export interface Health {
  status: string;
  [key: string]: unknown;
}

/** Poll answers by job kind (the kind is the job summary's `queue`). */
export interface PollAnswers {
  transcript: TranscriptPoll;
  transcript_batch: BatchPoll;
  video_batch: BatchPoll;
  ocr: OcrPoll;
  describe: DescribePoll;
  extract: ExtractPoll;
  crawl: CrawlPoll;
  batch_scrape: BatchScrapePoll;
  /** A monitor's check: polled at GET /v1/jobs/{jobId}. */
  monitor_check: Job;
}

export type JobKind = keyof PollAnswers;
