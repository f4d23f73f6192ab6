// The URL argument of scrape, map and crawl: a URL with a scheme as given (the server judges it), or
// a bare domain (`example.com`, `docs.example.com/guide`, `localhost:8080`) taken as https://, as
// Firecrawl's CLI does. Anything else is a usage error that says what was expected.
import { UsageError } from './exit-codes.js';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** `mailto:…`, `javascript:…`: a scheme without `//` (a port after a host is digits: `host:8080`). */
const OPAQUE_SCHEME = /^[a-z][a-z0-9+.-]*:(?!\d)/i;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

/** Whether `host` (no port) names a machine: localhost, [IPv6], or a dotted name whose last label is not digits. */
function isHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (/^\[[0-9a-f:.]+\]$/i.test(host)) return true;
  if (/^[\d.]+$/.test(host)) return false;
  const labels = host.replace(/\.$/, '').split('.');
  return labels.length >= 2 && labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels.at(-1)!);
}

const expected = 'expected an http(s) URL or a domain, e.g. https://example.com/docs or example.com';

/** The URL to send for `raw`: itself when it has a scheme, else https:// + a domain; else a UsageError. */
export function webUrl(raw: string): string {
  const given = raw.trim();
  // A full URL goes to the server as given: it judges the scheme, the host and the address.
  if (SCHEME.test(given)) return given;
  if (OPAQUE_SCHEME.test(given)) {
    throw new UsageError(`"${raw}" is not an http(s) URL (${expected})`);
  }
  const candidate = `https://${given}`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    throw new UsageError(`"${raw}" is not a URL (${expected})`);
  }
  // A bare word (`hello`, `hello world`) is no site: a domain has a dot, or is localhost or an address.
  const address = /^\d{1,3}(\.\d{1,3}){3}$/.test(url.hostname) && given.startsWith(url.hostname);
  if (/\s/.test(given) || url.username || url.password || !(address || isHost(url.hostname))) {
    throw new UsageError(`"${raw}" is not a URL (${expected})`);
  }
  return candidate;
}
