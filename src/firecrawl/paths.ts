// Which requests speak Firecrawl's dialect (its envelope, its error shape): its v2 API, and those of
// its v1 paths that are not ours. Our own routes live under /v1/<family>/…, so the only v1 path
// both APIs have is /v1/extract, which stays ours (Supadata's extract).
const FIRECRAWL_V1 = /^\/v1\/(scrape|crawl|map|search|batch\/scrape|team|llmstxt|deep-research)(\/|\?|$)/;

export function isFirecrawlPath(url: string): boolean {
  return url === '/v2' || url.startsWith('/v2/') || url.startsWith('/v2?') || FIRECRAWL_V1.test(url);
}

/** The OpenAPI tag of every Firecrawl-compatible route (left out of our own SDKs). */
export const FIRECRAWL_TAG = 'Firecrawl compatibility';
