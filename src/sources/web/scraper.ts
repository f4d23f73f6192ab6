// Scrape: a URL → its main content as Markdown with metadata and links. Plain fetch first; headless
// Chromium only when the page needs it (an empty JavaScript shell, an anti-bot wall) or when asked.
// Answers are cached briefly per URL and options so that repeated scrapes do not refetch.
import { createHash } from 'node:crypto';
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import { detectChallenge } from './challenge.js';
import { ChallengeError, type FetchedDocument, fetchDocument } from './fetch-page.js';
import { countCharacters } from './markdown.js';
import { type PageContent, parsePage } from './page.js';
import { pdfToText } from './pdf.js';

export type RenderMode = 'auto' | 'always' | 'never';

export interface ScrapeOptions {
  /** Links become plain text in `content`. */
  noLinks?: boolean;
  /** Preferred language, sent as Accept-Language. */
  lang?: string;
  render?: RenderMode;
  signal?: AbortSignal;
  /** Whose scrape it is: renders count against the account's share of the browser pool. */
  account?: string;
}

/** The scraped-page shape of the API. */
export interface ScrapedPage {
  url: string;
  content: string;
  name: string | null;
  description: string | null;
  ogUrl: string | null;
  ogImage: string | null;
  countCharacters: number;
  urls: string[];
}

/** What the browser pool offers (src/sources/web/browser-pool.ts). */
export interface Renderer {
  render(
    url: string,
    opts?: { headers?: Record<string, string>; signal?: AbortSignal; account?: string },
  ): Promise<{ html: string; url: string; status: number; contentType: string | null }>;
}

export interface ScraperDeps {
  upstreams: Upstreams;
  /** null: rendering is unavailable; `render=always` then fails and `auto` stays with the fetch. */
  renderer: Renderer | null;
  cache: ResultCache;
  cacheTtlMs: number;
  /** Tries per fetch (proxies rotate between them). */
  attempts: number;
}

const NOT_A_PAGE = (type: string | null) =>
  new AppError(
    'invalid_request',
    `Invalid parameter 'url': it points to ${type ?? 'binary'} content, not a web page or document`,
    'url',
  );

function toScraped(
  url: string,
  page: Omit<PageContent, 'urls' | 'looksEmpty'> & { urls: string[] },
): ScrapedPage {
  return {
    url,
    content: page.content,
    name: page.name,
    description: page.description,
    ogUrl: page.ogUrl,
    ogImage: page.ogImage,
    countCharacters: countCharacters(page.content),
    urls: page.urls,
  };
}

const cacheKey = (url: string, options: ScrapeOptions) =>
  `scrape:${createHash('sha256')
    .update(JSON.stringify([url, options.noLinks ?? false, options.lang ?? '', options.render ?? 'auto']))
    .digest('base64url')}`;

export class Scraper {
  constructor(private readonly deps: ScraperDeps) {}

  /** A scrape, served from the cache when the same URL and options were scraped moments ago. */
  scrape(url: string, options: ScrapeOptions = {}): Promise<ScrapedPage> {
    return cached(this.deps.cache, cacheKey(url, options), this.deps.cacheTtlMs, () =>
      this.scrapeNow(url, options),
    );
  }

  /** The cached scrape of the same URL and options, if there is one; never fetches. */
  async peek(url: string, options: ScrapeOptions = {}): Promise<ScrapedPage | undefined> {
    if (this.deps.cacheTtlMs <= 0) return undefined;
    return this.deps.cache.get<ScrapedPage>(cacheKey(url, options));
  }

  /** A scrape that always fetches (the crawler's, which never asks twice for a page). */
  async scrapeNow(url: string, options: ScrapeOptions = {}): Promise<ScrapedPage> {
    const mode = options.render ?? 'auto';
    if (mode === 'always') return this.rendered(url, options);
    let doc: FetchedDocument;
    try {
      doc = await fetchDocument(this.deps.upstreams, url, {
        lang: options.lang,
        signal: options.signal,
        attempts: this.deps.attempts,
        truncate: true,
      });
    } catch (err) {
      // A browser sometimes passes a JavaScript challenge that a plain client cannot.
      if (err instanceof ChallengeError && mode === 'auto' && this.deps.renderer) {
        return this.rendered(url, options);
      }
      throw err;
    }
    switch (doc.kind) {
      case 'binary':
        throw NOT_A_PAGE(doc.contentType);
      case 'pdf':
        return this.pdf(doc);
      case 'text': {
        const content = doc.text.trim();
        return toScraped(doc.url, {
          content,
          name: null,
          description: null,
          ogUrl: null,
          ogImage: null,
          urls: [],
        });
      }
      case 'html': {
        const page = parsePage(doc.text, doc.url, { noLinks: options.noLinks });
        if (page.looksEmpty && mode === 'auto' && this.deps.renderer) {
          const rendered = await this.rendered(url, options).catch(() => null);
          if (rendered && rendered.countCharacters > page.content.length) return rendered;
        }
        return toScraped(doc.url, page);
      }
    }
  }

  private async pdf(doc: FetchedDocument): Promise<ScrapedPage> {
    if (doc.truncated) {
      throw new AppError('payload_too_large', `The PDF at ${doc.url} is larger than the download limit`);
    }
    const { text, title } = await pdfToText(doc.body);
    return toScraped(doc.url, {
      content: text,
      name: title,
      description: null,
      ogUrl: null,
      ogImage: null,
      urls: [],
    });
  }

  private async rendered(url: string, options: ScrapeOptions): Promise<ScrapedPage> {
    const renderer = this.deps.renderer;
    if (!renderer) {
      throw new AppError('service_unavailable', 'Rendering with a browser is not available on this server');
    }
    const headers: Record<string, string> = options.lang
      ? { 'accept-language': `${options.lang},*;q=0.5` }
      : {};
    const page = await renderer.render(url, { headers, signal: options.signal, account: options.account });
    const host = new URL(page.url).host;
    const wall = detectChallenge({ status: page.status, headers: {}, html: page.html });
    if (wall) throw new ChallengeError(host, wall);
    if (page.status === 404 || page.status === 410)
      throw new AppError('not_found', `${host} answered ${page.status}: no such page`);
    if (page.status >= 400) throw new AppError('upstream_error', `${host} answered HTTP ${page.status}`);
    return toScraped(page.url, parsePage(page.html, page.url, { noLinks: options.noLinks }));
  }
}
