// One call for the common case of a crawl: start it, follow its pages as they arrive, and answer
// the finished crawl with every page at once.
import { UnfurlError } from './errors.js';
import { crawlPages } from './polling.js';
import { fillPath } from './routes.js';
import type { Transport } from './transport.js';
import type { CrawlBody, CrawlPoll, JobAccepted, ScrapedPage } from './types.js';

export interface CrawlAndWaitOptions {
  /** Give up after this long (default 10 minutes), with UnfurlError `job_timeout`; the crawl goes on. */
  timeoutMs?: number;
  /** Pause between polls while no new page is there (default 1000 ms). */
  intervalMs?: number;
  /** Stops waiting at once; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Same key and body within 24 h give the same crawl (no second hold). */
  idempotencyKey?: string;
  /** Called with each page as it arrives (progress, or writing pages out as they come). */
  onPage?: (page: ScrapedPage, index: number) => void;
  /** Called with every poll answer (its `total` and `status` drive progress displays). */
  onPoll?: (answer: CrawlPoll) => void;
}

/** The finished crawl: its last poll answer with every page, and `jobId`. */
export type CrawlResult = CrawlPoll & { jobId: string };

export async function crawlAndWait(
  transport: Transport,
  body: CrawlBody,
  options: CrawlAndWaitOptions = {},
): Promise<CrawlResult> {
  const { signal, intervalMs, timeoutMs = 600_000 } = options;
  const headers: Record<string, string> = {};
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const accepted = await transport.request<JobAccepted>({
    method: 'POST',
    path: fillPath('crawl'),
    body,
    headers,
    signal,
  });
  const { jobId } = accepted.body;
  const timer = AbortSignal.timeout(timeoutMs);
  const pages: ScrapedPage[] = [];
  let last: CrawlPoll | undefined;
  try {
    for await (const page of crawlPages(transport, jobId, {
      intervalMs,
      signal: signal ? AbortSignal.any([signal, timer]) : timer,
      onPoll: (answer) => {
        last = answer;
        options.onPoll?.(answer);
      },
    })) {
      pages.push(page);
      options.onPage?.(page, pages.length - 1);
    }
  } catch (err) {
    if (!timer.aborted || signal?.aborted) throw err;
    throw new UnfurlError({
      code: 'job_timeout',
      status: 0,
      message: `Crawl ${jobId} did not end within ${timeoutMs} ms (${pages.length} pages so far)`,
      job: last,
    });
  }
  const { next: _more, ...ended } = last!;
  return { ...ended, jobId, pages };
}
