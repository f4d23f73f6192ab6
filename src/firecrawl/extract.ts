// Firecrawl's extract over our batch scrape: each page scraped with the json format (the caller's
// prompt and schema, through the configured AI provider), then one answer made from the pages'
// answers (mergeExtracts). Web search and crawling beyond the URLs given are not offered.
import { Type } from '@sinclair/typebox';
import { invalid } from '../errors.js';
import type { ScrapeOptionsInput } from '../sources/web/scrape-options.js';
import { FirecrawlScrapeOptions, type FirecrawlScrapeOptionsInput, toScrapeOptions } from './document.js';

export const FirecrawlExtractBody = Type.Object(
  {
    urls: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: 100 }),
    prompt: Type.Optional(Type.String({ maxLength: 10_000 })),
    schema: Type.Optional(Type.Object({}, { additionalProperties: true })),
    systemPrompt: Type.Optional(Type.String({ maxLength: 10_000 })),
    allowExternalLinks: Type.Optional(Type.Boolean()),
    enableWebSearch: Type.Optional(Type.Boolean()),
    showSources: Type.Optional(Type.Boolean()),
    ignoreInvalidURLs: Type.Optional(Type.Boolean()),
    webhook: Type.Optional(Type.Unknown()),
    scrapeOptions: Type.Optional(FirecrawlScrapeOptions),
    agent: Type.Optional(Type.Unknown()),
    integration: Type.Optional(Type.String()),
    origin: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

type Body = typeof FirecrawlExtractBody.static;

/** The batch's scrape options for an extract: the caller's, with the json format asked their way. */
export function extractScrapeOptions(body: Body): Partial<ScrapeOptionsInput> {
  if (body.enableWebSearch)
    throw invalid('enableWebSearch', 'extracting from a web search is not offered by Unfurl');
  if (body.allowExternalLinks)
    throw invalid('allowExternalLinks', 'Unfurl extracts from the URLs given only');
  if (body.agent) throw invalid('agent', "Firecrawl's agent is not offered by Unfurl");
  for (const [i, url] of body.urls.entries()) {
    if (url.includes('*'))
      throw invalid(`urls[${i}]`, 'wildcards are not offered: list the pages (map finds them)');
  }
  const prompt = [body.systemPrompt, body.prompt].filter((p) => p?.trim()).join('\n\n');
  if (!prompt && !body.schema) throw invalid('prompt', "give 'prompt', 'schema' or both");
  const options = toScrapeOptions(
    { ...(body.scrapeOptions as FirecrawlScrapeOptionsInput), formats: [] },
    'scrapeOptions.',
  );
  return {
    ...options,
    formats: [{ type: 'json', ...(prompt && { prompt }), ...(body.schema && { schema: body.schema }) }],
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * One answer from the pages' answers, in page order: lists are joined (the entities found on each
 * page), objects merged field by field, and any other value is the first page's that has one.
 */
export function mergeExtracts(answers: readonly unknown[]): unknown {
  const present = answers.filter((a) => a !== null && a !== undefined);
  if (present.length === 0) return null;
  if (present.every(Array.isArray)) return present.flat();
  if (present.every(isObject)) {
    const keys = [...new Set(present.flatMap((a) => Object.keys(a)))];
    return Object.fromEntries(keys.map((k) => [k, mergeExtracts(present.map((a) => a[k]))]));
  }
  return present[0];
}
