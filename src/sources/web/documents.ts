// A scrape with formats (POST /v1/web/scrape, batch scrapes, a crawl's or a search's scrapeOptions):
// the page fetched or rendered once (scraper.ts), then each format the caller asked for made from it —
// Markdown and cleaned HTML from one parse, links and images from the whole page, screenshots stored
// where job results live (or inline), json and summary by the language model, PDFs as Markdown.
// Answers are cached by URL and options; `maxAge` says how old a cached one the caller accepts.
// What was done is priced here too (`extras`), so a cached answer costs what it cost the first time.
import { createHash } from 'node:crypto';
import type { ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { PageJsonAsk } from '../../media/llm/page-asks.js';
import type { ActionOutputs } from './browser-pool.js';
import { type PageContent, parsePage } from './page.js';
import { declaredLanguage, type PageImage, type PageLink, pageParts } from './page-parts.js';
import {
  needsBrowser,
  needsModel,
  SCRAPE_PRICES,
  type ScrapeRequest,
  scrapeCacheParts,
  scrapeExtras,
} from './scrape-options.js';
import type { BrowserAsk, PageSource, Scraper } from './scraper.js';

export interface DocumentMetadata {
  title: string | null;
  description: string | null;
  /** Declared by the page (<html lang>); null when it does not say. */
  language: string | null;
  ogUrl: string | null;
  ogImage: string | null;
  /** The URL asked for. */
  sourceURL: string;
  /** The URL answered, after redirects. */
  url: string;
  statusCode: number;
  /** A PDF's pages: in the file, and read. */
  pdfPages?: { total: number; read: number; ocr: number };
  /** hit: served from the cache (fetched at `cachedAt`); miss: fetched for this request. */
  cacheState: 'hit' | 'miss';
  cachedAt: string;
}

export interface ActionResults {
  /** Links to (or data: URLs of) the PNGs of the `screenshot` actions, in order. */
  screenshots: string[];
  scrapes: { url: string; html: string }[];
  javascriptReturns: { type: string; value: unknown }[];
}

export interface ScrapeDocument {
  url: string;
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: PageLink[];
  images?: PageImage[];
  /** A link to the stored PNG (as long as job results are kept), or a data: URL when asked inline. */
  screenshot?: string;
  json?: unknown;
  summary?: string;
  actions?: ActionResults;
  metadata: DocumentMetadata;
  /** What could not be made (a model's failure): the rest of the answer stands, that part unbilled. */
  warning?: string;
}

/** A document and what it costs beyond the request's base price (SCRAPE_PRICES). */
export interface PricedDocument {
  document: ScrapeDocument;
  extras: number;
}

/** The language model's part: null when no model is configured. */
export interface PageModel {
  json(ask: PageJsonAsk, markdown: string, signal: AbortSignal): Promise<unknown>;
  summary(markdown: string, signal: AbortSignal): Promise<string>;
}

/** What a PDF is read with (pdf.ts). */
export interface PdfAsk {
  mode: 'auto' | 'text' | 'ocr';
  maxPages: number;
  lang?: string;
  signal?: AbortSignal;
}

/** A PDF as Markdown, with its page counts (the pages read are billed past the first few). */
export interface PdfAnswer {
  markdown: string;
  title: string | null;
  pages: number;
  pagesRead: number;
  ocrPages: number;
}

/** Stores a file its owner may fetch for as long as job results are kept; answers its URL. */
export type StoreFile = (file: {
  accountId: string;
  contentType: 'image/png';
  data: Buffer;
  jobId?: string;
}) => Promise<{ url: string }>;

export interface WebDocumentsDeps {
  scraper: Pick<Scraper, 'source'>;
  cache: ResultCache;
  /** How long answers are cached, and how old a cached one may be when the caller does not say. */
  cacheTtlMs: number;
  storeFile: StoreFile;
  model: PageModel | null;
  pdf(body: Buffer, options: PdfAsk): Promise<PdfAnswer>;
}

export interface DocumentContext {
  accountId: string;
  /** Files it stores belong to this job (and go with it). */
  jobId?: string;
  signal?: AbortSignal;
}

interface CachedDocument extends PricedDocument {
  at: number;
}

const cacheKey = (url: string, request: ScrapeRequest) =>
  `doc:${createHash('sha256')
    .update(JSON.stringify(scrapeCacheParts(url, request)))
    .digest('base64url')}`;

const png = (data: Buffer) => `data:image/png;base64,${data.toString('base64')}`;

export class WebDocuments {
  constructor(private readonly deps: WebDocumentsDeps) {}

  /** A cached answer young enough for `request` (its maxAge), or undefined; never fetches. */
  async peek(url: string, request: ScrapeRequest): Promise<PricedDocument | undefined> {
    const maxAge = Math.min(request.maxAge ?? this.deps.cacheTtlMs, this.deps.cacheTtlMs);
    if (maxAge <= 0 || request.actions.length > 0) return undefined;
    const entry = await this.deps.cache.get<CachedDocument>(cacheKey(url, request));
    if (!entry || Date.now() - entry.at > maxAge) return undefined;
    return {
      extras: entry.extras,
      document: { ...entry.document, metadata: { ...entry.document.metadata, cacheState: 'hit' } },
    };
  }

  /** The page at `url` in the formats `request` asks for, fetched now (and cached for later). */
  async scrape(url: string, request: ScrapeRequest, context: DocumentContext): Promise<PricedDocument> {
    const deadline = AbortSignal.timeout(request.timeout);
    const signal = context.signal ? AbortSignal.any([context.signal, deadline]) : deadline;
    let priced: PricedDocument;
    try {
      priced = await this.make(url, request, { ...context, signal });
    } catch (err) {
      if (deadline.aborted && !context.signal?.aborted) {
        throw new AppError(
          'upstream_error',
          `Scraping ${url} took longer than its timeout (${request.timeout} ms)`,
          'timeout',
        );
      }
      throw err;
    }
    // Actions act on the page (a form sent, a button pressed): their answers are never served again.
    if (request.actions.length === 0) {
      await this.deps.cache.set<CachedDocument>(
        cacheKey(url, request),
        { ...priced, at: Date.parse(priced.document.metadata.cachedAt) },
        this.deps.cacheTtlMs,
      );
    }
    return priced;
  }

  private async make(url: string, request: ScrapeRequest, context: DocumentContext): Promise<PricedDocument> {
    this.requireModelFor(request); // 503 before any fetch when there is none
    const source = await this.deps.scraper.source(
      url,
      {
        lang: request.lang ?? undefined,
        render: request.render,
        signal: context.signal,
        account: context.accountId,
        browser: needsBrowser(request) ? browserAsk(request) : null,
      },
      (html, pageUrl) =>
        parsePage(html, pageUrl, {
          noLinks: request.noLinks,
          onlyMainContent: request.onlyMainContent,
          includeTags: request.includeTags,
          excludeTags: request.excludeTags,
          html: request.html,
        }),
    );
    const { document, pdfPages } = await this.formats(url, source, request, context.signal);
    let extras = scrapeExtras({ ...request, json: null, summary: false }, pdfPages);
    if (source.kind === 'html' && source.rendered) {
      await this.attachRendered(document, source.rendered, request, context);
    }
    extras += await this.ask(document, request, context.signal!);
    // The model reads the Markdown even when the caller did not ask for it.
    if (!request.markdown) delete document.markdown;
    return { document, extras };
  }

  /** The formats made from the document itself, and the PDF pages read (billed past the first few). */
  private async formats(
    sourceURL: string,
    source: PageSource<PageContent>,
    request: ScrapeRequest,
    signal: AbortSignal | undefined,
  ): Promise<{ document: ScrapeDocument; pdfPages: number }> {
    const metadata: DocumentMetadata = {
      title: null,
      description: null,
      language: null,
      ogUrl: null,
      ogImage: null,
      sourceURL,
      url: source.url,
      statusCode: source.status,
      cacheState: 'miss',
      cachedAt: new Date().toISOString(),
    };
    const document: ScrapeDocument = { url: source.url, metadata };
    if (source.kind === 'pdf') {
      const pdf = await this.deps.pdf(source.body, {
        mode: request.pdfMode,
        maxPages: request.maxPages,
        lang: request.lang ?? undefined,
        signal,
      });
      metadata.title = pdf.title;
      metadata.pdfPages = { total: pdf.pages, read: pdf.pagesRead, ocr: pdf.ocrPages };
      document.markdown = pdf.markdown;
      return { document, pdfPages: pdf.pagesRead };
    }
    if (source.kind === 'text') {
      document.markdown = source.text.trim();
      if (request.rawHtml) document.rawHtml = source.text;
      return { document, pdfPages: 0 };
    }
    const page = source.page;
    Object.assign(metadata, {
      title: page.name,
      description: page.description,
      ogUrl: page.ogUrl,
      ogImage: page.ogImage,
    });
    metadata.language = declaredLanguage(source.html);
    document.markdown = page.content;
    if (request.html) document.html = page.html ?? '';
    if (request.rawHtml) document.rawHtml = source.html;
    // The whole page's links and images: a parse of its own, only when asked for.
    if (request.links || request.images) {
      const parts = pageParts(source.html, source.url);
      if (request.links) document.links = parts.links;
      if (request.images) document.images = parts.images;
    }
    return { document, pdfPages: 0 };
  }

  /** The browser's outputs: the screenshot and the actions' screenshots stored (or inline), their snapshots. */
  private async attachRendered(
    document: ScrapeDocument,
    rendered: NonNullable<Extract<PageSource<PageContent>, { kind: 'html' }>['rendered']>,
    request: ScrapeRequest,
    context: DocumentContext,
  ): Promise<void> {
    const inline = request.screenshot?.inline ?? false;
    const keep = async (data: Buffer) =>
      inline
        ? png(data)
        : (
            await this.deps.storeFile({
              accountId: context.accountId,
              contentType: 'image/png',
              data,
              jobId: context.jobId,
            })
          ).url;
    if (request.screenshot && rendered.screenshot) document.screenshot = await keep(rendered.screenshot);
    const outputs: ActionOutputs | undefined = rendered.actions;
    if (outputs) {
      document.actions = {
        screenshots: await Promise.all(outputs.screenshots.map(keep)),
        scrapes: outputs.scrapes,
        javascriptReturns: outputs.javascriptReturns,
      };
    }
  }

  /**
   * The model's formats, each priced only when made: a model that fails leaves a warning and the
   * rest of the answer.
   */
  private async ask(document: ScrapeDocument, request: ScrapeRequest, signal: AbortSignal): Promise<number> {
    if (!request.json && !request.summary) return 0;
    const model = this.model();
    const markdown = document.markdown ?? '';
    const warnings: string[] = [];
    let made = 0;
    const [json, summary] = await Promise.allSettled([
      request.json ? model.json(request.json, markdown, signal) : Promise.resolve(undefined),
      request.summary ? model.summary(markdown, signal) : Promise.resolve(undefined),
    ]);
    if (request.json) {
      if (json.status === 'fulfilled') [document.json, made] = [json.value, made + 1];
      else warnings.push(`json: ${reason(json.reason)}`);
    }
    if (request.summary) {
      if (summary.status === 'fulfilled') [document.summary, made] = [summary.value as string, made + 1];
      else warnings.push(`summary: ${reason(summary.reason)}`);
    }
    if (warnings.length) document.warning = `Not made: ${warnings.join('; ')}`;
    return made * SCRAPE_PRICES.modelFormat;
  }

  /**
   * 503 when `request` needs the language model (json, summary) and this server has none: what a
   * scrape does before fetching, and a job or search with such scrapeOptions before it is accepted.
   */
  requireModelFor(request: ScrapeRequest): void {
    if (needsModel(request)) this.model();
  }

  private model(): PageModel {
    if (!this.deps.model) {
      throw new AppError(
        'provider_unavailable',
        'The json and summary formats need a language model, and none is configured on this server (UNFURL_AI_BASE_URL)',
      );
    }
    return this.deps.model;
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]!.slice(0, 300) : String(err);
}

function browserAsk(request: ScrapeRequest): BrowserAsk {
  return {
    waitFor: request.waitFor || undefined,
    mobile: request.mobile || undefined,
    actions: request.actions.length ? request.actions : undefined,
    screenshot: request.screenshot ? { fullPage: request.screenshot.fullPage } : undefined,
  };
}
