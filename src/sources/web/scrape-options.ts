// What a caller may ask of a scrape beyond the page's Markdown (POST /v1/web/scrape, and the
// `scrapeOptions` of batch scrapes, crawls and searches): the formats of the answer, which parts of
// the page to read, the browser's part (waiting, a phone's screen, actions, screenshots), PDFs, and
// how old a cached answer may be. One schema, one check and one price serve every route that takes
// them, so an option means the same everywhere.
import { type Static, Type } from '@sinclair/typebox';
import { creditsText, type PriceRow } from '../../billing/prices.js';
import { invalid } from '../../errors.js';
import { type JsonSchema, schemaProblem } from '../../media/llm/schema.js';
import { StringEnum } from '../../schemas.js';
import { ACTION_LIMITS, ActionsSchema, checkActions, selectorProblem } from './actions.js';

export const FORMAT_NAMES = [
  'markdown',
  'html',
  'rawHtml',
  'links',
  'images',
  'screenshot',
  'screenshot@fullPage',
  'json',
  'summary',
] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

export const SCRAPE_LIMITS = {
  selectors: 50,
  selectorLength: 500,
  promptLength: 10_000,
  maxPdfPages: 500,
  maxWaitMs: ACTION_LIMITS.maxWaitMs,
  minTimeoutMs: 1_000,
  maxTimeoutMs: 180_000,
  maxAgeMs: 30 * 86_400_000,
} as const;

const JsonFormat = Type.Object(
  {
    type: Type.Literal('json'),
    prompt: Type.Optional(Type.String({ minLength: 1, maxLength: SCRAPE_LIMITS.promptLength })),
    schema: Type.Optional(Type.Unknown({ description: 'A JSON Schema (type object) the answer follows' })),
  },
  { additionalProperties: false },
);

const ScreenshotFormat = Type.Object(
  {
    type: Type.Literal('screenshot'),
    fullPage: Type.Optional(Type.Boolean({ description: 'The whole page, not only the first screen' })),
    inline: Type.Optional(
      Type.Boolean({ description: 'The PNG inline as a data: URL instead of a link to the stored file' }),
    ),
  },
  { additionalProperties: false },
);

const Format = Type.Union([StringEnum(FORMAT_NAMES), JsonFormat, ScreenshotFormat]);

const Selectors = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: SCRAPE_LIMITS.selectorLength }), {
      maxItems: SCRAPE_LIMITS.selectors,
      description,
    }),
  );

/** The options themselves: POST /v1/web/scrape's body without `url`, and `scrapeOptions` elsewhere. */
export const ScrapeOptionsSchema = Type.Object(
  {
    formats: Type.Array(Format, {
      minItems: 1,
      maxItems: 10,
      default: ['markdown'],
      description:
        'What the answer carries: markdown, html (the cleaned main content), rawHtml, links, images, screenshot ' +
        '(or {type:"screenshot", fullPage, inline}; "screenshot@fullPage"), json ({type:"json", schema, prompt}) ' +
        'and summary (both by the language model)',
    }),
    onlyMainContent: Type.Boolean({
      default: true,
      description: 'The main content only (false: the whole page, scripts and hidden parts aside)',
    }),
    includeTags: Selectors('CSS selectors: only what they match is read'),
    excludeTags: Selectors('CSS selectors: what they match is dropped before the page is read'),
    waitFor: Type.Integer({
      minimum: 0,
      maximum: SCRAPE_LIMITS.maxWaitMs,
      default: 0,
      description: 'Milliseconds to wait once the page has loaded, in the browser (at most half of timeout)',
    }),
    mobile: Type.Boolean({
      default: false,
      description: "Render as a phone's browser (viewport and user agent)",
    }),
    timeout: Type.Integer({
      minimum: SCRAPE_LIMITS.minTimeoutMs,
      maximum: SCRAPE_LIMITS.maxTimeoutMs,
      default: 60_000,
      description: 'Milliseconds the whole scrape may take',
    }),
    maxAge: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: SCRAPE_LIMITS.maxAgeMs,
        description:
          "Milliseconds: a cached answer this young is served (0: always fetch); default: the server's scrape cache time",
      }),
    ),
    actions: Type.Optional(ActionsSchema),
    render: StringEnum(['auto', 'always', 'never'] as const, {
      default: 'auto',
      description:
        'Headless browser: auto (when the page is an empty JavaScript shell, or the options need one), always, never',
    }),
    noLinks: Type.Boolean({ default: false, description: 'Links become plain text in markdown' }),
    lang: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
        maxLength: 35,
        description: 'Preferred language (BCP 47, e.g. en, pt-BR), sent as Accept-Language',
      }),
    ),
    pdfMode: StringEnum(['auto', 'text', 'ocr'] as const, {
      default: 'auto',
      description:
        'PDFs: auto (the text layer, OCR for pages without one), text (the text layer only), ocr (every page)',
    }),
    maxPages: Type.Integer({
      minimum: 1,
      maximum: SCRAPE_LIMITS.maxPdfPages,
      default: 10,
      description: 'PDFs: the most pages read (pages past the first 10 are billed: see the price table)',
    }),
  },
  { additionalProperties: false },
);

export type ScrapeOptionsInput = Static<typeof ScrapeOptionsSchema>;

/** A screenshot asked for: of the full page or the first screen, linked or inline. */
export interface ScreenshotAsk {
  fullPage: boolean;
  inline: boolean;
}

/** The options as the scrape uses them: formats resolved, defaults applied, everything checked. */
export interface ScrapeRequest {
  markdown: boolean;
  html: boolean;
  rawHtml: boolean;
  links: boolean;
  images: boolean;
  screenshot: ScreenshotAsk | null;
  json: { prompt: string | null; schema: JsonSchema | null } | null;
  summary: boolean;
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
  waitFor: number;
  mobile: boolean;
  timeout: number;
  /** null: the server's cache time. */
  maxAge: number | null;
  actions: NonNullable<ScrapeOptionsInput['actions']>;
  render: 'auto' | 'always' | 'never';
  noLinks: boolean;
  lang: string | null;
  pdfMode: 'auto' | 'text' | 'ocr';
  maxPages: number;
}

/** Throws 400 naming `param` when `selector` is not CSS a page can be queried with. */
function checkSelector(selector: string, param: string): void {
  const problem = selectorProblem(selector);
  if (problem) throw invalid(param, problem);
}

/**
 * The request a validated body asks for (defaults as the schema applies them), its options checked
 * beyond what the schema says; `prefix` is where they sit in the body ('' or 'scrapeOptions.').
 */
export function scrapeRequest(input: Partial<ScrapeOptionsInput>, prefix = ''): ScrapeRequest {
  const request = resolveRequest(input, prefix);
  checkRequest(request, prefix);
  return request;
}

/**
 * The request of options that were checked when their job was accepted (a batch's or a crawl's
 * input, read again to price or run it): resolved, without parsing their selectors and actions again.
 */
export const storedScrapeRequest = (input: Partial<ScrapeOptionsInput>): ScrapeRequest =>
  resolveRequest(input, 'scrapeOptions.');

/** The formats resolved and the defaults applied; a format asked for twice or without its parts is a 400. */
function resolveRequest(input: Partial<ScrapeOptionsInput>, prefix: string): ScrapeRequest {
  const at = (name: string) => `${prefix}${name}`;
  const request: ScrapeRequest = {
    markdown: false,
    html: false,
    rawHtml: false,
    links: false,
    images: false,
    screenshot: null,
    json: null,
    summary: false,
    onlyMainContent: input.onlyMainContent ?? true,
    includeTags: input.includeTags ?? [],
    excludeTags: input.excludeTags ?? [],
    waitFor: input.waitFor ?? 0,
    mobile: input.mobile ?? false,
    timeout: input.timeout ?? 60_000,
    maxAge: input.maxAge ?? null,
    actions: input.actions ?? [],
    render: input.render ?? 'auto',
    noLinks: input.noLinks ?? false,
    lang: input.lang ?? null,
    pdfMode: input.pdfMode ?? 'auto',
    maxPages: input.maxPages ?? 10,
  };
  const formats = input.formats ?? ['markdown'];
  const seen = new Set<string>();
  formats.forEach((format, i) => {
    const name = typeof format === 'string' ? format : format.type;
    const key = name.startsWith('screenshot') ? 'screenshot' : name;
    if (seen.has(key)) throw invalid(`${at('formats')}[${i}]`, `${key} is asked for twice`);
    seen.add(key);
    if (typeof format !== 'string') {
      if (format.type === 'screenshot') {
        request.screenshot = { fullPage: format.fullPage ?? false, inline: format.inline ?? false };
      } else {
        request.json = jsonAsk(format, `${at('formats')}[${i}]`);
      }
      return;
    }
    switch (format) {
      case 'screenshot':
      case 'screenshot@fullPage':
        request.screenshot = { fullPage: format === 'screenshot@fullPage', inline: false };
        return;
      case 'json':
        throw invalid(
          `${at('formats')}[${i}]`,
          'json needs a schema or a prompt: give it as {"type":"json","schema":{…},"prompt":"…"}',
        );
      default:
        request[format] = true;
    }
  });
  return request;
}

/** What the schema cannot say: selectors that parse, waiting within the timeout, actions, the browser. */
function checkRequest(request: ScrapeRequest, prefix: string): void {
  const at = (name: string) => `${prefix}${name}`;
  for (const name of ['includeTags', 'excludeTags'] as const) {
    request[name].forEach((selector, i) => {
      checkSelector(selector, `${at(name)}[${i}]`);
    });
  }
  if (request.waitFor > request.timeout / 2) {
    throw invalid(at('waitFor'), `at most half of timeout (${request.timeout} ms)`);
  }
  checkActions(request.actions, request.waitFor, at('actions'));
  if (request.render === 'never' && needsBrowser(request)) {
    throw invalid(at('render'), 'never, but screenshots, actions, waitFor and mobile need the browser');
  }
}

function jsonAsk(
  format: Static<typeof JsonFormat>,
  param: string,
): { prompt: string | null; schema: JsonSchema | null } {
  if (format.schema === undefined && format.prompt === undefined) {
    throw invalid(param, 'json needs a schema, a prompt or both');
  }
  if (format.schema !== undefined) {
    const problem = schemaProblem(format.schema);
    if (problem) throw invalid(`${param}.schema`, `the schema ${problem}`);
  }
  return { prompt: format.prompt ?? null, schema: (format.schema as JsonSchema | undefined) ?? null };
}

/** Whether the request can only be answered by rendering the page in the browser. */
export function needsBrowser(request: ScrapeRequest): boolean {
  return (
    request.render === 'always' ||
    request.screenshot !== null ||
    request.actions.length > 0 ||
    request.waitFor > 0 ||
    request.mobile
  );
}

/** Whether the request needs the language model. */
export const needsModel = (request: ScrapeRequest) => request.json !== null || request.summary;

/** A scrape's rates, in credits, beyond the request's own (prices.syncRequest). */
export const SCRAPE_PRICES = {
  /** Each of json and summary: one language-model call, priced as a page monitor's extraction. */
  modelFormat: 2,
  screenshot: 1,
  /** PDF pages read free with every scrape; each further page read (by its text or OCR) costs this. */
  pdfPagesIncluded: 10,
  pdfPerPage: 1,
} as const;

/** The row of the price table for a scrape's extras (POST /v1/web/scrape and every scrapeOptions). */
export const SCRAPE_PRICE: PriceRow = {
  operation:
    'Scrape formats and PDFs (`POST /v1/web/scrape`, and each page of a batch, crawl or search with `scrapeOptions`)',
  price: `beyond the page's ${creditsText(1)}: ${SCRAPE_PRICES.modelFormat} each for \`json\` and \`summary\`, ${SCRAPE_PRICES.screenshot} per screenshot, ${SCRAPE_PRICES.pdfPerPage} per PDF page read past the first ${SCRAPE_PRICES.pdfPagesIncluded}`,
};

/** What a scrape asking `request` costs beyond its base price, once `pdfPages` pages of a PDF were read. */
export function scrapeExtras(request: ScrapeRequest, pdfPages = 0): number {
  const shots = (request.screenshot ? 1 : 0) + request.actions.filter((a) => a.type === 'screenshot').length;
  return (
    SCRAPE_PRICES.modelFormat * ((request.json ? 1 : 0) + (request.summary ? 1 : 0)) +
    SCRAPE_PRICES.screenshot * shots +
    SCRAPE_PRICES.pdfPerPage * Math.max(0, pdfPages - SCRAPE_PRICES.pdfPagesIncluded)
  );
}

/** The most a scrape asking `request` may cost beyond its base: held first, settled on what it did. */
export const maxScrapeExtras = (request: ScrapeRequest) => scrapeExtras(request, request.maxPages);

/**
 * The key of a scrape's cached answer: the URL and every option that changes the answer (not
 * `timeout` or `maxAge`, which only say how to get it).
 */
export function scrapeCacheParts(url: string, request: ScrapeRequest): unknown[] {
  const { timeout: _t, maxAge: _m, ...rest } = request;
  return [url, rest];
}
