// Scrape: a URL → its main content as Markdown with metadata and links. Plain fetch first; headless
// Chromium only when the page needs it (an empty JavaScript shell, an anti-bot wall) or when asked.
// Answers are cached briefly per URL and options so that repeated scrapes do not refetch.
import { createHash } from 'node:crypto';
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { Upstreams } from '../../net/upstream.js';
import type { RenderedPage, RenderOptions } from './browser-pool.js';
import { detectChallenge } from './challenge.js';
import { ChallengeError, type FetchedDocument, fetchDocument } from './fetch-page.js';
import { countCharacters } from './markdown.js';
import { type PageContent, parsePage } from './page.js';
import { PDF_MAX_PAGES, pdfToMarkdown } from './pdf.js';

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
  render(url: string, opts?: RenderOptions): Promise<RenderedPage>;
}

/** The browser's part of a scrape: waiting, a phone's screen, actions, a screenshot. */
export type BrowserAsk = Pick<RenderOptions, 'waitFor' | 'mobile' | 'actions' | 'screenshot'>;

export interface SourceOptions extends ScrapeOptions {
  /** Browser work asked for: the page is rendered with it, never fetched plainly. */
  browser?: BrowserAsk | null;
}

/** What a parse of an HTML page must tell the scraper: whether to try the browser instead. */
export interface ParsedPage {
  content: string;
  looksEmpty: boolean;
}

/** A fetched (or rendered) document, with the parse of an HTML page. */
export type PageSource<P> =
  | { kind: 'html'; url: string; status: number; html: string; page: P; rendered: RenderedPage | null }
  | { kind: 'text'; url: string; status: number; text: string }
  | { kind: 'pdf'; url: string; status: number; body: Buffer };

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
    const source = await this.source(url, options, (html, pageUrl) =>
      parsePage(html, pageUrl, { noLinks: options.noLinks }),
    );
    switch (source.kind) {
      case 'pdf':
        return this.pdf(source.url, source.body, options.signal);
      case 'text':
        return toScraped(source.url, {
          content: source.text.trim(),
          name: null,
          description: null,
          ogUrl: null,
          ogImage: null,
          urls: [],
        });
      case 'html':
        return toScraped(source.url, source.page);
    }
  }

  /**
   * The document at `url`: fetched, or rendered by the browser when the options need it, when a
   * plain fetch meets a challenge a browser may pass, or when the fetched page is an empty
   * JavaScript shell (`render: auto`); an HTML page comes with its parse by `parse`.
   */
  async source<P extends ParsedPage>(
    url: string,
    options: SourceOptions,
    parse: (html: string, url: string) => P,
  ): Promise<PageSource<P>> {
    const mode = options.render ?? 'auto';
    if (mode === 'always' || options.browser) return this.renderedSource(url, options, parse);
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
        return this.renderedSource(url, options, parse);
      }
      throw err;
    }
    switch (doc.kind) {
      case 'binary':
        throw NOT_A_PAGE(doc.contentType);
      case 'pdf':
        if (doc.truncated) {
          throw new AppError('payload_too_large', `The PDF at ${doc.url} is larger than the download limit`);
        }
        return { kind: 'pdf', url: doc.url, status: doc.status, body: doc.body };
      case 'text':
        return { kind: 'text', url: doc.url, status: doc.status, text: doc.text };
      case 'html': {
        const page = parse(doc.text, doc.url);
        if (page.looksEmpty && mode === 'auto' && this.deps.renderer) {
          const rendered = await this.renderedSource(url, options, parse).catch(() => null);
          if (rendered && rendered.page.content.length > page.content.length) return rendered;
        }
        return { kind: 'html', url: doc.url, status: doc.status, html: doc.text, page, rendered: null };
      }
    }
  }

  /** GET /v1/web/scrape's PDF: its text layer as Markdown (OCR and page billing are POST's). */
  private async pdf(url: string, body: Buffer, signal?: AbortSignal): Promise<ScrapedPage> {
    const { markdown, title } = await pdfToMarkdown(body, { mode: 'text', maxPages: PDF_MAX_PAGES, signal });
    return toScraped(url, {
      content: markdown,
      name: title,
      description: null,
      ogUrl: null,
      ogImage: null,
      urls: [],
    });
  }

  private async renderedSource<P extends ParsedPage>(
    url: string,
    options: SourceOptions,
    parse: (html: string, url: string) => P,
  ): Promise<Extract<PageSource<P>, { kind: 'html' }>> {
    const renderer = this.deps.renderer;
    if (!renderer) {
      throw new AppError('service_unavailable', 'Rendering with a browser is not available on this server');
    }
    const headers: Record<string, string> = options.lang
      ? { 'accept-language': `${options.lang},*;q=0.5` }
      : {};
    const page = await renderer.render(url, {
      headers,
      signal: options.signal,
      account: options.account,
      ...options.browser,
    });
    const host = new URL(page.url).host;
    const wall = detectChallenge({ status: page.status, headers: {}, html: page.html });
    if (wall) throw new ChallengeError(host, wall);
    if (page.status === 404 || page.status === 410)
      throw new AppError('not_found', `${host} answered ${page.status}: no such page`);
    if (page.status >= 400) throw new AppError('upstream_error', `${host} answered HTTP ${page.status}`);
    return {
      kind: 'html',
      url: page.url,
      status: page.status,
      html: page.html,
      page: parse(page.html, page.url),
      rendered: page,
    };
  }
}
