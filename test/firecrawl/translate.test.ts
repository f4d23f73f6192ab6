// The pure translations between Firecrawl's dialect and ours: options in, documents out, search
// requests, and the one answer an extract makes of its pages' answers.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { toFirecrawlDocument, toScrapeOptions } from '../../src/firecrawl/document.js';
import { mergeExtracts } from '../../src/firecrawl/extract.js';
import { searchAsk } from '../../src/firecrawl/search.js';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a refusal');
};

describe('toScrapeOptions', () => {
  it('keeps shared names, maps language, PDF parser and v1 jsonOptions', () => {
    expect(
      toScrapeOptions({
        formats: ['markdown', { type: 'screenshot', fullPage: true } as { type: string }, 'json'],
        jsonOptions: { prompt: 'The price', schema: { type: 'object' } },
        onlyMainContent: false,
        waitFor: 500,
        timeout: 200,
        location: { country: 'DE', languages: ['de-DE'] },
        parsers: ['pdf', { type: 'pdf', mode: 'ocr', maxPages: 3 }],
        proxy: 'stealth',
        blockAds: true,
      }),
    ).toEqual({
      formats: [
        'markdown',
        { type: 'screenshot', fullPage: true },
        { type: 'json', prompt: 'The price', schema: { type: 'object' } },
      ],
      onlyMainContent: false,
      waitFor: 500,
      timeout: 1000, // our floor
      lang: 'de-DE',
      pdfMode: 'ocr',
      maxPages: 3,
    });
  });

  it('refuses what would change the answer, naming it', () => {
    expect(refusal(() => toScrapeOptions({ headers: { cookie: 'a=b' } })).details).toBe('headers');
    expect(
      refusal(() => toScrapeOptions({ formats: ['markdown', 'branding'] }, 'scrapeOptions.')).details,
    ).toBe('scrapeOptions.formats[1]');
    expect(refusal(() => toScrapeOptions({ formats: [{ type: 'changeTracking' }] })).details).toBe(
      'formats[0].type',
    );
    expect(refusal(() => toScrapeOptions({ parsers: [{ type: 'pdf', mode: 'magic' }] })).details).toBe(
      'parsers[0].mode',
    );
    expect(toScrapeOptions({ headers: {} })).toEqual({});
  });
});

describe('toFirecrawlDocument', () => {
  it('answers links and images as URLs and metadata without empty fields', () => {
    const doc = toFirecrawlDocument(
      {
        url: 'https://example.com/a',
        markdown: '# A',
        links: [{ url: 'https://example.com/b', text: 'B', internal: true }],
        images: [{ url: 'https://example.com/i.png', alt: null }],
        metadata: {
          title: 'A',
          description: null,
          language: 'en',
          ogUrl: null,
          ogImage: null,
          sourceURL: 'https://example.com/a',
          url: 'https://example.com/a',
          statusCode: 200,
          pdfPages: { total: 12, read: 10, ocr: 0 },
          cacheState: 'miss',
          cachedAt: '2026-11-28T00:00:00.000Z',
        },
      } as never,
      1,
    );
    expect(doc).toEqual({
      markdown: '# A',
      links: ['https://example.com/b'],
      images: ['https://example.com/i.png'],
      metadata: {
        title: 'A',
        language: 'en',
        sourceURL: 'https://example.com/a',
        url: 'https://example.com/a',
        statusCode: 200,
        numPages: 12,
        cacheState: 'miss',
        cachedAt: '2026-11-28T00:00:00.000Z',
        creditsUsed: 1,
      },
    });
  });
});

describe('searchAsk', () => {
  it('maps sources and tbs, and takes a country only with a language', () => {
    expect(
      searchAsk({ query: ' tomatoes ', sources: ['web', { type: 'news' }], tbs: 'qdr:w', country: 'us' }),
    ).toEqual({
      query: 'tomatoes',
      limit: 5,
      page: 1,
      timeRange: 'week',
      categories: ['general', 'news'],
    });
    expect(searchAsk({ query: 'q', lang: 'en', country: 'US' })).toMatchObject({ lang: 'en', country: 'us' });
    expect(refusal(() => searchAsk({ query: 'q', tbs: 'cdr:1,cd_min:1/1/2024' })).details).toBe('tbs');
    expect(refusal(() => searchAsk({ query: 'q', sources: ['web', 'videos'] })).details).toBe('sources[1]');
  });
});

describe('mergeExtracts', () => {
  it('joins lists, merges objects field by field, keeps the first other value', () => {
    expect(
      mergeExtracts([
        { company: 'Acme', products: [{ name: 'A' }], address: { city: 'Lyon' } },
        null,
        { company: 'Acme Inc', products: [{ name: 'B' }], address: { zip: '69001' } },
      ]),
    ).toEqual({
      company: 'Acme',
      products: [{ name: 'A' }, { name: 'B' }],
      address: { city: 'Lyon', zip: '69001' },
    });
    expect(mergeExtracts([[1], [2, 3]])).toEqual([1, 2, 3]);
    expect(mergeExtracts([])).toBeNull();
  });
});
