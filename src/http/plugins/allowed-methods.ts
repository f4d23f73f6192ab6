// A request whose path exists with other methods is a 405 naming them in `Allow`, not "No route":
// the caller got the path right and the method wrong, and should be told which.
import type { RouteEntry } from './auth.js';

const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** A route URL as a regular expression on a path: `:param` (with an optional `(regex)`) is one segment, `*` the rest. */
export function routePattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.includes(':')) return '[^/]+';
      return escapeRegExp(segment);
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

// Each route URL's pattern, made once: unknown paths are cheap to answer, however many arrive.
const patterns = new Map<string, RegExp>();
const patternOf = (url: string) => {
  let pattern = patterns.get(url);
  if (!pattern) {
    pattern = routePattern(url);
    patterns.set(url, pattern);
  }
  return pattern;
};

/** The methods the routes in `table` answer at `path`, sorted; empty when the path is unknown. */
export function allowedMethods(table: readonly RouteEntry[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of table) {
    if (patternOf(route.url).test(path)) methods.add(route.method);
  }
  return [...methods].sort();
}
