// Prices, in credits. A job kind's rates live beside the kind, with its row of the price table (its
// `price`: OCR_PRICES in media/ocr-job.ts, …); here are the rates of the work that is not a job kind
// (synchronous requests, search, translation) and the rows no kind owns. `priceTable` puts the two
// together for /docs/reference.

export const FREE_CREDITS_AT_REGISTRATION = 100;

export const prices = {
  /** Metadata, native transcript, scrape, map, comments, listings, microblog post. */
  syncRequest: 1,
  /** Search, per page of results fetched from the platform. */
  searchPerPage: 1,
  /** Translation by the language model (when the platform has none), per model call of ≤ 4,000 characters. */
  translationPerModelCall: 2,
} as const;

/** "1 credit", "5 credits": every message that states an amount says it this way. */
export const creditsText = (n: number | string) => `${n} credit${Number(n) === 1 ? '' : 's'}`;

export const startedMinutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

/** A row of the price table, for people: what is priced, and its price in words. */
export interface PriceRow {
  /** "On-screen text (OCR)"; `code` in backquotes. */
  readonly operation: string;
  /** "1 credit per started minute". */
  readonly price: string;
}

const syncRow: PriceRow = {
  operation: 'Synchronous request (metadata, native transcript, scrape, map, comments, listings, post)',
  price: creditsText(prices.syncRequest),
};

const searchRow: PriceRow = {
  operation: 'Search',
  price: `${creditsText(prices.searchPerPage)} per page of results fetched (about 20 results a page)`,
};

const translationRow: PriceRow = {
  operation: 'Transcript translation',
  price: `${creditsText(prices.syncRequest)} for the platform's own translation; by the language model, ${prices.syncRequest} + ${prices.translationPerModelCall} per call of up to 4,000 characters`,
};

const freeRow: PriceRow = { operation: 'Polling, account, keys, usage, jobs, packages', price: 'free' };

/**
 * The price table README and /docs show: the synchronous request and the extras of requests
 * (`requestRows`: a scrape's formats), then the rows of the job kinds as given (`JobRegistry.prices()`:
 * each kind's `price`, in the order they registered), search, translation, and what is free.
 */
export function priceTable(jobRows: readonly PriceRow[], requestRows: readonly PriceRow[] = []): PriceRow[] {
  return [syncRow, ...requestRows, ...jobRows, searchRow, translationRow, freeRow];
}
