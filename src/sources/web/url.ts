// One spelling per page: links found on pages and in sitemaps are resolved against their base and
// normalised the same way, so a page is listed (map) or fetched (crawl) once.
import { withoutWww } from './url-dedupe.js';

const SKIPPED_SCHEMES = /^\s*(?:javascript|mailto|tel|sms|data|blob|about|ftp|file):/i;

/**
 * The normal form of an http(s) URL: fragment dropped, scheme and host lower-cased, default port
 * dropped (the WHATWG parser does those two), empty query dropped. null for anything else.
 */
export function normalizeUrl(input: string | URL): string | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  url.hash = '';
  // `search` reads '' for a bare '?' that href still keeps; assigning '' drops it.
  if (url.search === '') url.search = '';
  return url.toString();
}

/** An href as found in a page, resolved against `base` and normalised; null when not a web link. */
export function resolveLink(href: string | null | undefined, base: URL | string): string | null {
  if (!href) return null;
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith('#') || SKIPPED_SCHEMES.test(trimmed)) return null;
  try {
    return normalizeUrl(new URL(trimmed, base));
  } catch {
    return null;
  }
}

/**
 * The host of `url` is `host` or (with `subdomains`) one of its subdomains. With `ignoreWww`, one
 * leading `www.` is dropped from both first (`www.example.com` and `example.com` are one site).
 */
export function sameSite(url: URL, host: string, subdomains: boolean, ignoreWww = false): boolean {
  const h = ignoreWww ? withoutWww(url.hostname) : url.hostname;
  const base = ignoreWww ? withoutWww(host) : host;
  return h === base || (subdomains && h.endsWith(`.${base}`));
}
