// Firecrawl's scrape options in, Firecrawl's document out: pure translations between its dialect and
// our scrape (sources/web/scrape-options.ts, documents.ts), which already has most of its options
// under the same names. What it has and we do not is refused by name (400) when it would change the
// answer (custom headers, formats we do not make), and accepted and ignored when it only tunes its
// own service (origin, integration, storeInCache, proxy choice…).
import { type Static, Type } from '@sinclair/typebox';
import { invalid } from '../errors.js';
import type { ScrapeDocument } from '../sources/web/documents.js';
import { FORMAT_NAMES, type ScrapeOptionsInput } from '../sources/web/scrape-options.js';

/** The formats we make, as Firecrawl names them. */
const OUR_FORMATS = new Set<string>(FORMAT_NAMES.filter((name) => name !== 'screenshot@fullPage'));

const Loose = Type.Unknown();
const JsonOptions = Type.Object({
  prompt: Type.Optional(Type.String()),
  schema: Type.Optional(Loose),
  systemPrompt: Type.Optional(Type.String()),
});

/** Firecrawl's scrape options (v1 and v2 share these names). */
export const FirecrawlScrapeOptions = Type.Object(
  {
    formats: Type.Optional(
      Type.Array(
        Type.Union([Type.String(), Type.Object({ type: Type.String() }, { additionalProperties: true })]),
        {
          maxItems: 20,
          description:
            'markdown, html, rawHtml, links, images, screenshot (or {type:"screenshot", fullPage}), json ' +
            '({type:"json", schema, prompt}), summary; v1 also "screenshot@fullPage" and jsonOptions',
        },
      ),
    ),
    onlyMainContent: Type.Optional(Type.Boolean()),
    includeTags: Type.Optional(Type.Array(Type.String())),
    excludeTags: Type.Optional(Type.Array(Type.String())),
    waitFor: Type.Optional(Type.Integer({ minimum: 0 })),
    mobile: Type.Optional(Type.Boolean()),
    timeout: Type.Optional(Type.Integer({ minimum: 0 })),
    maxAge: Type.Optional(Type.Integer({ minimum: 0 })),
    actions: Type.Optional(Type.Array(Loose)),
    location: Type.Optional(
      Type.Object({
        country: Type.Optional(Type.String()),
        languages: Type.Optional(Type.Array(Type.String())),
      }),
    ),
    parsers: Type.Optional(Type.Array(Loose, { maxItems: 5 })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    jsonOptions: Type.Optional(JsonOptions),
    // v1's older name for jsonOptions.
    extract: Type.Optional(JsonOptions),
    // Accepted and ignored: they tune Firecrawl's own service.
    skipTlsVerification: Type.Optional(Type.Boolean()),
    removeBase64Images: Type.Optional(Type.Boolean()),
    fastMode: Type.Optional(Type.Boolean()),
    blockAds: Type.Optional(Type.Boolean()),
    proxy: Type.Optional(Type.String()),
    minAge: Type.Optional(Type.Integer()),
    storeInCache: Type.Optional(Type.Boolean()),
    zeroDataRetention: Type.Optional(Type.Boolean()),
    integration: Type.Optional(Type.String()),
    origin: Type.Optional(Type.String()),
    useMock: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type FirecrawlScrapeOptionsInput = Static<typeof FirecrawlScrapeOptions>;

/** PDF parser modes, as Firecrawl names them, to ours. */
const PDF_MODES: Record<string, ScrapeOptionsInput['pdfMode']> = { fast: 'text', auto: 'auto', ocr: 'ocr' };

/** Firecrawl's options as ours (checked by scrapeRequest() afterwards); `at` is where they sit. */
export function toScrapeOptions(input: FirecrawlScrapeOptionsInput, at = ''): Partial<ScrapeOptionsInput> {
  const out: Partial<ScrapeOptionsInput> = {};
  if (input.headers && Object.keys(input.headers).length > 0) {
    throw invalid(
      `${at}headers`,
      'custom request headers are not offered by Unfurl (location.languages sets the language)',
    );
  }
  if (input.formats)
    out.formats = input.formats.map((f, i) =>
      toFormat(f, `${at}formats[${i}]`, input.jsonOptions ?? input.extract),
    );
  for (const key of [
    'onlyMainContent',
    'includeTags',
    'excludeTags',
    'waitFor',
    'mobile',
    'maxAge',
  ] as const) {
    if (input[key] !== undefined) (out as Record<string, unknown>)[key] = input[key];
  }
  // Firecrawl's timeout bounds the whole request as ours does, with a lower floor.
  if (input.timeout !== undefined) out.timeout = Math.max(1_000, input.timeout);
  if (input.actions) out.actions = input.actions as ScrapeOptionsInput['actions'];
  const language = input.location?.languages?.[0];
  if (language) out.lang = language;
  for (const [i, parser] of (input.parsers ?? []).entries()) {
    if (parser === 'pdf') continue;
    const p = parser as { type?: unknown; mode?: unknown; maxPages?: unknown };
    if (typeof p !== 'object' || p === null || p.type !== 'pdf') {
      throw invalid(`${at}parsers[${i}]`, 'only the pdf parser is offered');
    }
    if (p.mode !== undefined) {
      const mode = PDF_MODES[String(p.mode)];
      if (!mode) throw invalid(`${at}parsers[${i}].mode`, 'one of fast, auto, ocr');
      out.pdfMode = mode;
    }
    if (p.maxPages !== undefined) out.maxPages = p.maxPages as number;
  }
  return out;
}

type OurFormat = NonNullable<ScrapeOptionsInput['formats']>[number];

function toFormat(
  format: string | { type: string; [k: string]: unknown },
  at: string,
  jsonOptions: FirecrawlScrapeOptionsInput['jsonOptions'],
): OurFormat {
  if (typeof format === 'string') {
    if (format === 'screenshot@fullPage') return format;
    if (format === 'json' || format === 'extract') {
      // v1: the json format's prompt and schema come in jsonOptions.
      return { type: 'json', ...jsonParts(jsonOptions as Record<string, unknown> | undefined) };
    }
    if (!OUR_FORMATS.has(format)) throw invalid(at, `the ${format} format is not offered by Unfurl`);
    return format as OurFormat;
  }
  const { type, ...rest } = format;
  if (type === 'json') return { type: 'json', ...jsonParts(rest) };
  if (type === 'screenshot') {
    return { type: 'screenshot', ...(rest.fullPage !== undefined && { fullPage: rest.fullPage === true }) };
  }
  if (!OUR_FORMATS.has(type)) throw invalid(`${at}.type`, `the ${type} format is not offered by Unfurl`);
  return type as OurFormat;
}

function jsonParts(from: Record<string, unknown> | undefined): { prompt?: string; schema?: unknown } {
  return {
    ...(typeof from?.prompt === 'string' && { prompt: from.prompt }),
    ...(from?.schema !== undefined && { schema: from.schema }),
  };
}

/** Firecrawl's document: links and images as URLs, metadata without its empty fields. */
export function toFirecrawlDocument(doc: ScrapeDocument, creditsUsed?: number): Record<string, unknown> {
  const { url: _, links, images, metadata, ...rest } = doc;
  const { pdfPages, ...meta } = metadata;
  const out: Record<string, unknown> = { ...rest };
  if (links) out.links = links.map((link) => link.url);
  if (images) out.images = images.map((image) => image.url);
  const firecrawlMeta: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta))
    if (value !== null && value !== undefined) firecrawlMeta[key] = value;
  if (pdfPages) firecrawlMeta.numPages = pdfPages.total;
  if (creditsUsed !== undefined) firecrawlMeta.creditsUsed = creditsUsed;
  out.metadata = firecrawlMeta;
  return out;
}
