// robots.txt for crawl and map, read the way Google reads it (RFC 9309): the group for our agent,
// else the `*` group; longest match wins, Allow wins a tie; `*` and `$` in paths. robots-parser does
// the matching; this file fetches the file and decides what a missing or failing one means.
import robotsParserModule from 'robots-parser';
import { decodeBody } from '../../net/charset.js';
import type { Upstreams } from '../../net/upstream.js';
import { BROWSER_USER_AGENT } from './fetch-page.js';
import { normalizeUrl } from './url.js';

/** The product token our rules are looked up under (sites write `User-agent: UnfurlBot`). */
export const CRAWLER_AGENT = 'UnfurlBot';

export interface RobotsRules {
  /** Whether our agent may fetch `url`; URLs of another origin are not this file's to judge (true). */
  isAllowed(url: string): boolean;
  /** Crawl-delay for our agent (or *), in ms, capped at 10 s; null when none */
  crawlDelayMs: number | null;
  /** absolute Sitemap: URLs */
  sitemaps: string[];
}

// robots-parser is CommonJS (`module.exports = fn`) with typings that declare an ES default export:
// under NodeNext the default import is the function at run time but typed as the namespace.
type RobotsParser = typeof robotsParserModule.default;
const robotsParser: RobotsParser =
  typeof robotsParserModule === 'function'
    ? (robotsParserModule as RobotsParser)
    : robotsParserModule.default;

/** Google reads the first 500 KiB of a robots.txt and ignores the rest. */
const MAX_ROBOTS_BYTES = 512 * 1024;
const ROBOTS_TIMEOUT_MS = 10_000;
/** A site asking for more than this between requests still gets a crawl, just a slow one. */
const MAX_CRAWL_DELAY_MS = 10_000;

export const ALLOW_ALL: RobotsRules = Object.freeze({
  isAllowed: () => true,
  crawlDelayMs: null,
  sitemaps: [] as string[],
});

/** Rules from the text of the robots.txt found at `robotsUrl` (pure). */
export function parseRobots(robotsUrl: string, text: string): RobotsRules {
  const robots = robotsParser(robotsUrl, text);
  const delay = robots.getCrawlDelay(CRAWLER_AGENT);
  const sitemaps: string[] = [];
  for (const raw of robots.getSitemaps()) {
    let url: string | null = null;
    try {
      url = normalizeUrl(new URL(raw, robotsUrl));
    } catch {
      // not a URL: skipped
    }
    if (url && !sitemaps.includes(url)) sitemaps.push(url);
  }
  return {
    // undefined: another origin (or not a URL) — not covered by this file.
    isAllowed: (url) => robots.isAllowed(url, CRAWLER_AGENT) ?? true,
    crawlDelayMs:
      typeof delay === 'number' && Number.isFinite(delay) && delay > 0
        ? Math.min(Math.round(delay * 1000), MAX_CRAWL_DELAY_MS)
        : null,
    sitemaps,
  };
}

/**
 * Fetches and reads `${origin}/robots.txt`. Redirects are followed (SafeFetcher re-checks each hop)
 * and the rules still apply to `origin`. A 2xx is parsed; a 4xx (404, but also 401/403, as Google
 * does) means no rules. A 5xx, 429 or network failure would make Google stop crawling for a while;
 * we are not a search engine revisiting a site but a user's one-off request, so we fail open: every
 * path allowed, no sitemaps. Only the caller's own abort is thrown.
 */
export async function fetchRobots(
  upstreams: Upstreams,
  origin: string,
  opts: { signal?: AbortSignal } = {},
): Promise<RobotsRules> {
  const robotsUrl = `${new URL(origin).origin}/robots.txt`;
  let res: Awaited<ReturnType<Upstreams['fetch']>>;
  try {
    res = await upstreams.fetch('web', robotsUrl, {
      headers: { 'user-agent': BROWSER_USER_AGENT, accept: 'text/plain,*/*;q=0.5' },
      attempts: 1,
      timeoutMs: ROBOTS_TIMEOUT_MS,
      maxBytes: MAX_ROBOTS_BYTES,
      truncate: true,
      signal: opts.signal,
    });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return ALLOW_ALL;
  }
  // 3xx here: more redirects than SafeFetcher follows — Google treats that as a 404.
  if (res.status < 200 || res.status >= 300) return ALLOW_ALL;
  const header = res.headers['content-type'];
  let { text } = decodeBody(res.body, typeof header === 'string' ? header : null, { sniffMeta: false });
  // A cut file ends mid-line: that half rule could mean something else, so it goes.
  if (res.truncated) text = text.slice(0, Math.max(0, text.lastIndexOf('\n')));
  return parseRobots(robotsUrl, text);
}
