// The one place a search's results meet the scraper (POST /v1/web/search's scrapeOptions): each
// result's page scraped by the callback it is given, a few at a time, the answers in result order. A
// page that fails keeps its result, with the failure in place of the document, and is not billed.
import { AppError } from '../../errors.js';
import type { SearchResult } from './search-parse.js';

/** Pages of one search scraped at once. */
export const SEARCH_SCRAPE_CONCURRENCY = 4;

export type ScrapedResult<D> = SearchResult &
  (
    | { document: D; scrapeError?: never }
    | { document?: never; scrapeError: { error: string; message: string } }
  );

/**
 * `scrape` run on every result's URL (at most `concurrency` at once); stops starting new ones once
 * `signal` aborts, and then rejects with its reason.
 */
export async function scrapeResults<D>(
  results: readonly SearchResult[],
  scrape: (url: string) => Promise<D>,
  options: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<ScrapedResult<D>[]> {
  const out = new Array<ScrapedResult<D>>(results.length);
  let next = 0;
  const worker = async () => {
    while (next < results.length) {
      options.signal?.throwIfAborted();
      const i = next++;
      const result = results[i]!;
      try {
        out[i] = { ...result, document: await scrape(result.url) };
      } catch (err) {
        options.signal?.throwIfAborted();
        const e = err instanceof AppError ? err : null;
        out[i] = {
          ...result,
          scrapeError: {
            error: e?.code ?? 'internal_error',
            message: e?.message ?? 'The page could not be scraped',
          },
        };
      }
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? SEARCH_SCRAPE_CONCURRENCY, results.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return out;
}
