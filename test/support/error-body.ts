// An error answer read the same way whichever of our two shapes its path speaks: ours
// ({error: code, message, details, documentationUrl}) or, on Firecrawl's routes, Firecrawl's
// ({success: false, error: message, code, details}).
import { isFirecrawlPath } from '../../src/firecrawl/paths.js';

export interface ErrorParts {
  error: string;
  message: string;
  details: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: a JSON answer
export function errorParts(url: string, body: any): ErrorParts {
  if (isFirecrawlPath(url)) return { error: body.code, message: body.error, details: body.details };
  return { error: body.error, message: body.message, details: body.details };
}
