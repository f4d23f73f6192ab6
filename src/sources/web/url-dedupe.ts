// When two URLs are one page, for crawl and map alike (Firecrawl's `ignoreQueryParameters` and
// `deduplicateSimilarURLs`): one pure key per page, so each page is fetched (crawl) or listed (map)
// once, in the first form seen. The URLs handed in are already normalised (url.ts: no fragment,
// lower-case scheme and host, no default port).

export interface DedupeOptions {
  /** URLs differing only in their query are one page, listed and fetched without it. */
  ignoreQueryParameters: boolean;
  /**
   * www. or not, http or https, a trailing slash or not, and a trailing index.html / index.htm /
   * index.php or not: one page.
   */
  deduplicateSimilarURLs: boolean;
}

const INDEX_FILE = /\/index\.(?:html?|php)$/i;

/** The host without one leading `www.` (`www.example.com` and `example.com` are one site). */
export const withoutWww = (hostname: string) =>
  hostname.startsWith('www.') && hostname.length > 4 ? hostname.slice(4) : hostname;

/** The URL without its query (`?…`). */
export function withoutQuery(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The form a URL is listed and fetched in: itself, or without its query when those are ignored. */
export const listedForm = (url: string, opts: DedupeOptions) =>
  opts.ignoreQueryParameters ? withoutQuery(url) : url;

/**
 * The key two URLs share when they are one page (pure). Without either option, the URL itself.
 * Similar URLs: the scheme is left out (an explicit port is kept: `:8080` is another server), one
 * leading `www.` is dropped, and a trailing `index.html|index.htm|index.php` then any trailing slashes
 * are dropped from the path. The path's case is kept: servers may tell /A from /a.
 */
export function urlKey(url: string, opts: DedupeOptions): string {
  if (!opts.ignoreQueryParameters && !opts.deduplicateSimilarURLs) return url;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const query = opts.ignoreQueryParameters ? '' : u.search;
  if (!opts.deduplicateSimilarURLs) return `${u.protocol}//${u.host}${u.pathname}${query}`;
  const host = withoutWww(u.hostname) + (u.port ? `:${u.port}` : '');
  const path = u.pathname.replace(INDEX_FILE, '/').replace(/\/+$/, '');
  return `//${host}${path}${query}`;
}

/** URLs in order, each page once in the first form seen (see urlKey). */
export class UrlSet {
  private readonly keys = new Set<string>();
  readonly urls: string[] = [];

  constructor(private readonly opts: DedupeOptions) {}

  get size(): number {
    return this.urls.length;
  }

  has(url: string): boolean {
    return this.keys.has(urlKey(listedForm(url, this.opts), this.opts));
  }

  /** Adds `url` (in its listed form) unless its page is in the set; answers whether it was added. */
  add(url: string): boolean {
    const listed = listedForm(url, this.opts);
    const key = urlKey(listed, this.opts);
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    this.urls.push(listed);
    return true;
  }
}
