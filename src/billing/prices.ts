// The price table, in credits. Every paid route and job takes its price from here.

export const FREE_CREDITS_AT_REGISTRATION = 100;

export const prices = {
  /** Metadata, native transcript, scrape, map, comments, listings, microblog post. */
  syncRequest: 1,
  /** Speech recognition, per started minute of audio. */
  speechPerMinute: 2,
  /** OCR, per started minute of video. */
  ocrPerMinute: 1,
  describeBase: 5,
  describePerFrame: 1,
  /** Extraction, per started minute of video, never below the minimum. */
  extractPerMinute: 5,
  extractMinimum: 5,
  crawlBase: 1,
  crawlPerPage: 1,
  batchBase: 1,
  batchPerVideo: 1,
  /** Search, per page of results fetched from the platform. */
  searchPerPage: 1,
  /** Translation by the language model (when the platform has none), per model call of ≤ 4,000 characters. */
  translationPerModelCall: 2,
  /** A page monitor's fields (its JSON Schema), per extraction by the language model. */
  pageFieldsExtraction: 2,
} as const;

/** "1 credit", "5 credits": every message that states an amount says it this way. */
export const creditsText = (n: number | string) => `${n} credit${Number(n) === 1 ? '' : 's'}`;

export const startedMinutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

/** Human-readable table for README and /docs: [operation, price]. */
export const priceTable: ReadonlyArray<readonly [string, string]> = [
  ['Synchronous request (metadata, native transcript, scrape, map, comments, listings, post)', '1 credit'],
  ['Speech recognition (transcript `mode=generate`/`auto` fallback)', '2 credits per started minute'],
  ['On-screen text (OCR)', '1 credit per started minute'],
  [
    'Describe',
    '5 credits + 1 per frame (+ 2 per started minute when includeTranscript needs speech recognition)',
  ],
  ['Extract', '5 credits per started minute (minimum 5)'],
  ['Crawl', '1 credit + 1 per page'],
  ['Batch (transcripts or video metadata)', '1 credit + 1 per video'],
  ['Search', '1 credit per page of results fetched (about 20 results a page)'],
  [
    'Transcript translation',
    "1 credit for the platform's own translation; by the language model, 1 + 2 per call of up to 4,000 characters",
  ],
  [
    'Monitor check',
    'what its requests cost: 1 per listing, scrape or map, 1 per new video reported (its metadata), each transcript at its price, 1 per page scraped by a site monitor, 2 per extraction of a page monitor’s fields (at the baseline and when the page changed); a failed check costs nothing',
  ],
  ['Polling, account, keys, usage, jobs, packages', 'free'],
];
