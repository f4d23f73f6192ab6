// Sitemaps for map: the files robots.txt names (else /sitemap.xml), sitemap indexes followed a few
// levels deep, gzipped files, plain-text ones and RSS/Atom feeds (all allowed by sitemaps.org).
// A sitemap is a hint, not the answer: one that fails or is broken is skipped, and caps on files,
// depth, bytes, URLs and time keep a hostile or huge site from costing more than a map is worth.
import zlib from 'node:zlib';
import { Parser } from 'htmlparser2';
import { decodeBody } from '../../net/charset.js';
import type { Upstreams } from '../../net/upstream.js';
import { BROWSER_USER_AGENT } from './fetch-page.js';
import { normalizeUrl } from './url.js';

/** What map and crawl do with a site's sitemaps: read them beside the links, not at all, or alone. */
export type SitemapMode = 'include' | 'skip' | 'only';

export interface SitemapOptions {
  /** max URLs returned */
  limit: number;
  /** files fetched, default 50 */
  maxSitemaps?: number;
  /** index nesting, default 3: a file that deep is read for its URLs, its child sitemaps are not */
  maxDepth?: number;
  signal?: AbortSignal;
  /** Decoded bytes read from one file (after gunzip), default 50 MiB (the protocol's limit); more is cut. */
  maxFileBytes?: number;
  /** Time for the whole walk, default 20 s; when it runs out, what was found so far is the answer. */
  timeBudgetMs?: number;
  /**
   * Which URLs count, in what form: the form to list and the key of its page (two URLs with one key
   * are listed once, in the first form found), or null to leave it out — so `limit` counts only the
   * URLs the caller keeps. Default: every URL, as found, keyed by itself.
   */
  pick?: (url: string) => { url: string; key: string } | null;
}

const DEFAULT_MAX_SITEMAPS = 50;
const DEFAULT_MAX_DEPTH = 3;
const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;
const DEFAULT_TIME_BUDGET_MS = 20_000;
const FILE_TIMEOUT_MS = 15_000;
/** Files fetched at once: enough to hide latency, few enough to bound memory (each up to maxFileBytes). */
const CONCURRENCY = 4;

export interface ParsedSitemap {
  /** Page URLs (<urlset><url><loc>, text lines, feed items), as written: decoded and trimmed. */
  urls: string[];
  /** Child sitemaps (<sitemapindex><sitemap><loc>). */
  sitemaps: string[];
}

/** XML (or a feed) rather than a plain-text list of URLs. */
const looksXml = (body: string) =>
  body
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('<');

/** Element name without its namespace prefix (`<sm:loc>`, `<ns0:url>`), lower-cased. */
const localName = (name: string) => name.slice(name.lastIndexOf(':') + 1).toLowerCase();

/** Reads one sitemap file's text (pure). */
export function parseSitemap(body: string): ParsedSitemap {
  if (!looksXml(body)) {
    const urls = body
      .split(/\r\n|\r|\n/)
      .map((line) => line.trim())
      .filter((line) => /^https?:\/\//i.test(line));
    return { urls, sitemaps: [] };
  }
  const urls: string[] = [];
  const sitemaps: string[] = [];
  const stack: string[] = [];
  let text: string | null = null;
  let ending = false;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const local = localName(name);
        const parent = stack.at(-1);
        stack.push(local);
        if (local === 'loc' || (local === 'link' && parent === 'item')) text = '';
        // Atom: <entry><link href="…"/>, the alternate (default) link being the page itself.
        if (
          local === 'link' &&
          parent === 'entry' &&
          attribs.href &&
          (attribs.rel ?? 'alternate') === 'alternate'
        )
          urls.push(attribs.href.trim());
      },
      ontext(chunk) {
        if (text !== null) text += chunk;
      },
      onclosetag() {
        const local = stack.pop();
        const parent = stack.at(-1);
        if (text === null || (local !== 'loc' && local !== 'link')) return;
        const value = text.trim();
        text = null;
        // Closed only by the end of input: a file cut short, and this URL perhaps with it.
        if (ending || !value) return;
        // <image:loc>, <video:content_loc> and the like sit deeper and are not pages.
        if (local === 'loc' && parent === 'url') urls.push(value);
        else if (local === 'loc' && parent === 'sitemap') sitemaps.push(value);
        else if (local === 'link' && parent === 'item') urls.push(value);
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(body);
  ending = true;
  parser.end();
  return { urls, sitemaps };
}

/** Gunzips at most `cap` bytes: a small file can unpack to gigabytes (a gzip bomb). */
async function gunzipCapped(data: Buffer, cap: number): Promise<{ body: Buffer; truncated: boolean }> {
  // A download cut by its byte cap ends mid-stream: SYNC_FLUSH decodes up to the cut instead of
  // failing, which would (depending on timing) drop chunks already decoded but not yet read.
  const gunzip = zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  gunzip.end(data);
  try {
    for await (const chunk of gunzip) {
      const buf = chunk as Buffer;
      if (size + buf.length >= cap) {
        chunks.push(buf.subarray(0, cap - size));
        truncated = true;
        break;
      }
      chunks.push(buf);
      size += buf.length;
    }
  } catch {
    // Corrupt, or cut short by the download cap: what was decoded so far is still worth reading.
    truncated = true;
  } finally {
    gunzip.destroy();
  }
  return { body: Buffer.concat(chunks), truncated };
}

const isGzip = (body: Buffer) => body[0] === 0x1f && body[1] === 0x8b;

/** At most `n` tasks at a time. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(n: number) {
    this.free = n;
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

const NOTHING: ParsedSitemap = { urls: [], sitemaps: [] };

/** One walk over a site's sitemaps, in document order, depth first. */
class SitemapWalk {
  /** Page key → the URL as listed, in the order found. */
  readonly found = new Map<string, string>();
  private readonly requested = new Set<string>();
  private readonly slots = new Slots(CONCURRENCY);
  private readonly limit: number;
  private readonly maxSitemaps: number;
  private readonly maxDepth: number;
  private readonly maxFileBytes: number;
  private readonly pick: NonNullable<SitemapOptions['pick']>;

  constructor(
    private readonly upstreams: Upstreams,
    opts: SitemapOptions,
    private readonly signal: AbortSignal,
  ) {
    this.limit = opts.limit;
    this.maxSitemaps = opts.maxSitemaps ?? DEFAULT_MAX_SITEMAPS;
    this.maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.pick = opts.pick ?? ((url) => ({ url, key: url }));
  }

  private get done(): boolean {
    return this.found.size >= this.limit || this.signal.aborted;
  }

  /** Reads `list` in order (fetching up to CONCURRENCY ahead) and the indexes' children under each. */
  async visit(list: string[], depth: number): Promise<void> {
    // A list claims its share of the file budget up front, so a long index feeds its own children
    // before any nested index further down gets a turn.
    const claimed: string[] = [];
    for (const url of list) {
      if (this.requested.size >= this.maxSitemaps) break;
      if (this.requested.has(url)) continue; // an index listing itself, or a cycle
      this.requested.add(url);
      claimed.push(url);
    }
    // Loads start now (the slots pace them) but are read in order; none of them rejects.
    const loads = claimed.map((url) =>
      this.slots.run(() => (this.done ? Promise.resolve(NOTHING) : this.load(url))),
    );
    for (const load of loads) {
      const file = await load;
      for (const url of file.urls) {
        if (this.done) return;
        const picked = this.pick(url);
        if (picked && !this.found.has(picked.key)) this.found.set(picked.key, picked.url);
      }
      if (this.done) return;
      if (depth < this.maxDepth && file.sitemaps.length > 0) await this.visit(file.sitemaps, depth + 1);
    }
  }

  /** One sitemap file, its URLs resolved and normalised; NOTHING when it fails or is not a sitemap. */
  private async load(url: string): Promise<ParsedSitemap> {
    try {
      const res = await this.upstreams.fetch('web', url, {
        headers: {
          'user-agent': BROWSER_USER_AGENT,
          accept: 'application/xml,text/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5',
        },
        // A sitemap is optional: one try, no proxy rotation, skipped on failure.
        attempts: 1,
        timeoutMs: FILE_TIMEOUT_MS,
        maxBytes: this.maxFileBytes,
        truncate: true,
        signal: this.signal,
      });
      if (res.status < 200 || res.status >= 300) return NOTHING;
      let body = res.body;
      let truncated = res.truncated;
      let contentType = typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : null;
      // `.xml.gz` files come as application/x-gzip or octet-stream, not Content-Encoding: sniff them.
      if (isGzip(body)) {
        ({ body, truncated } = await gunzipCapped(body, this.maxFileBytes));
        contentType = null;
      }
      let { text } = decodeBody(body, contentType, { sniffMeta: true });
      // A plain-text list cut short ends in half a URL.
      if (truncated && !looksXml(text)) text = text.slice(0, Math.max(0, text.lastIndexOf('\n')));
      const parsed = parseSitemap(text);
      // The protocol wants absolute URLs and Google drops the others; so do we, rather than turn a
      // broken file's debris into links to nowhere.
      const absolute = (list: string[]) =>
        list.map((u) => normalizeUrl(u)).filter((u): u is string => u !== null);
      return { urls: absolute(parsed.urls), sitemaps: absolute(parsed.sitemaps) };
    } catch {
      return NOTHING;
    }
  }
}

/**
 * Page URLs from the site's sitemaps, normalised, deduplicated, in order, at most `limit`. Sources:
 * the robots.txt `Sitemap:` URLs (any host: robots.txt may point elsewhere), else `/sitemap.xml`,
 * else — only when that gave nothing — `/sitemap_index.xml` (Yoast and others), one more request
 * only for sites that have neither. Running out of time gives what was found; the caller's own
 * abort is thrown.
 */
export async function sitemapUrls(
  upstreams: Upstreams,
  startUrl: string,
  robotsSitemaps: string[],
  opts: SitemapOptions,
): Promise<string[]> {
  const stop = new AbortController();
  const budget = AbortSignal.timeout(opts.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS);
  const signal = AbortSignal.any([stop.signal, budget, ...(opts.signal ? [opts.signal] : [])]);
  const walk = new SitemapWalk(upstreams, opts, signal);
  const origin = new URL(startUrl).origin;
  const roots = robotsSitemaps.map((u) => normalizeUrl(u)).filter((u): u is string => u !== null);
  try {
    if (opts.limit <= 0) return [];
    if (roots.length > 0) await walk.visit(roots, 0);
    else {
      await walk.visit([`${origin}/sitemap.xml`], 0);
      if (walk.found.size === 0) await walk.visit([`${origin}/sitemap_index.xml`], 0);
    }
  } finally {
    stop.abort(); // fetches still running ahead are no longer wanted
  }
  if (opts.signal?.aborted) throw opts.signal.reason;
  return [...walk.found.values()].slice(0, opts.limit);
}
