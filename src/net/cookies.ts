// An operator's account cookies for one platform (UNFURL_COOKIES_<PLATFORM>): a Netscape cookies.txt
// file, as browser extensions and yt-dlp write it, parsed by a pure function; the jar then hands out
// the Cookie header for a request — only to the platform's own hosts, never past their expiry. The
// values never leave through anything but that header: the jar prints as a count, and the parse
// errors name lines, not contents.
import { inspect } from 'node:util';

export interface Cookie {
  /** Lower-case, without a leading dot. */
  readonly domain: string;
  /** Whether subdomains of `domain` get it too (the file's flag, or a leading dot). */
  readonly includeSubdomains: boolean;
  readonly path: string;
  /** Only over https. */
  readonly secure: boolean;
  /** Unix seconds; 0 for a session cookie (kept while the process runs). */
  readonly expires: number;
  readonly name: string;
  readonly value: string;
  readonly httpOnly: boolean;
}

/** What is wrong with a cookies file: names the line, never echoes its content. */
export class CookieFileError extends Error {}

const HTTP_ONLY = '#HttpOnly_';
const FLAG = /^(TRUE|FALSE)$/i;
// A cookie name is an HTTP token; a value may not break the header it is sent in (no `;`, no
// control or non-ASCII characters).
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const COOKIE_VALUE = /^[\x20-\x3a\x3c-\x7e]*$/;

/**
 * The cookies of a Netscape cookies.txt: one cookie a line, seven tab-separated fields (domain,
 * include-subdomains flag, path, secure flag, expiry in Unix seconds, name, value); `#HttpOnly_`
 * before a domain marks an HttpOnly cookie; other lines starting with `#` and blank lines are
 * comments. A line in any other shape is an error naming its number.
 */
export function parseCookiesTxt(text: string): Cookie[] {
  const out: Cookie[] = [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((raw, i) => {
    const at = `line ${i + 1}`;
    let line = raw.replace(/\r$/, '');
    let httpOnly = false;
    if (line.startsWith(HTTP_ONLY)) {
      httpOnly = true;
      line = line.slice(HTTP_ONLY.length);
    } else if (line.startsWith('#') || line.trim() === '') {
      return;
    }
    const fields = line.split('\t');
    if (fields.length !== 7) {
      throw new CookieFileError(
        `${at}: expected 7 tab-separated fields, found ${fields.length} (fields must be separated by tabs)`,
      );
    }
    const [domainField, subdomains, path, secure, expiry, name, value] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const domain = domainField.trim().toLowerCase();
    if (!/^\.?[a-z0-9.-]+$/.test(domain) || domain.replace(/^\./, '') === '') {
      throw new CookieFileError(`${at}: the domain is not a host name`);
    }
    if (!FLAG.test(subdomains)) throw new CookieFileError(`${at}: the second field must be TRUE or FALSE`);
    if (!path.startsWith('/')) throw new CookieFileError(`${at}: the path must start with /`);
    if (!FLAG.test(secure)) throw new CookieFileError(`${at}: the fourth field must be TRUE or FALSE`);
    const trimmedExpiry = expiry.trim();
    if (!/^\d{0,15}$/.test(trimmedExpiry)) {
      throw new CookieFileError(`${at}: the expiry must be Unix seconds (0 for a session cookie)`);
    }
    if (!COOKIE_NAME.test(name)) throw new CookieFileError(`${at}: the cookie name is not a valid name`);
    if (!COOKIE_VALUE.test(value)) {
      throw new CookieFileError(`${at}: the cookie value has characters a Cookie header cannot carry`);
    }
    out.push({
      domain: domain.replace(/^\./, ''),
      includeSubdomains: subdomains.toUpperCase() === 'TRUE' || domain.startsWith('.'),
      path,
      secure: secure.toUpperCase() === 'TRUE',
      expires: trimmedExpiry === '' ? 0 : Number(trimmedExpiry),
      name,
      value,
      httpOnly,
    });
  });
  return out;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

const expired = (c: Cookie, now: number) => c.expires > 0 && c.expires <= now;

function domainMatches(c: Cookie, host: string): boolean {
  return host === c.domain || (c.includeSubdomains && host.endsWith(`.${c.domain}`));
}

function pathMatches(c: Cookie, path: string): boolean {
  if (path === c.path || c.path === '/') return true;
  return path.startsWith(c.path) && (c.path.endsWith('/') || path[c.path.length] === '/');
}

/**
 * One platform's cookies. `owns` says which hosts are the platform's: a cookie is kept only when its
 * domain is one of them, and sent only to a request whose host is one of them.
 */
export class CookieJar {
  readonly #cookies: readonly Cookie[];
  readonly #owns: (host: string) => boolean;

  constructor(cookies: readonly Cookie[], owns: (host: string) => boolean) {
    this.#cookies = cookies;
    this.#owns = owns;
  }

  /**
   * The jar of a parsed file for a platform: cookies of other sites and expired ones left out, and
   * how many each were (an error when nothing is left: the wrong file, or one exported too long ago).
   */
  static of(
    cookies: readonly Cookie[],
    owns: (host: string) => boolean,
    now = nowSeconds(),
  ): { jar: CookieJar; foreign: number; expired: number } {
    const foreign = cookies.filter((c) => !owns(c.domain));
    const stale = cookies.filter((c) => owns(c.domain) && expired(c, now));
    const kept = cookies.filter((c) => owns(c.domain) && !expired(c, now));
    if (kept.length === 0) {
      throw new CookieFileError(
        `none of its ${cookies.length} cookies can be used: ${foreign.length} are for other sites, ${stale.length} have expired`,
      );
    }
    return { jar: new CookieJar(kept, owns), foreign: foreign.length, expired: stale.length };
  }

  get size(): number {
    return this.#cookies.length;
  }

  /** The cookies that go with a request to `url`: none off the platform's hosts, over http if secure, or expired. */
  private matching(url: string, now: number): Cookie[] {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return [];
    }
    const host = target.hostname.toLowerCase().replace(/\.$/, '');
    if (!this.#owns(host)) return [];
    const https = target.protocol === 'https:';
    return this.#cookies.filter(
      (c) =>
        !expired(c, now) && (https || !c.secure) && domainMatches(c, host) && pathMatches(c, target.pathname),
    );
  }

  /** The Cookie header value for a request to `url` ('' when none goes). */
  headerFor(url: string, now = nowSeconds()): string {
    return this.matching(url, now)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** The value a request to `url` would carry for cookie `name` (null when none). */
  valueFor(url: string, name: string, now = nowSeconds()): string | null {
    return this.matching(url, now).find((c) => c.name === name)?.value ?? null;
  }

  // Whatever prints a configuration (a log line, an error report) sees a count, not the cookies.
  toJSON(): string {
    return `[${this.size} cookies]`;
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}

/**
 * The request's own Cookie header with the account's cookies added: a cookie the request already
 * sets (the consent cookie, a challenge answer) keeps its value.
 */
export function withAccountCookies(own: string | undefined, account: string): string {
  if (!account) return own ?? '';
  if (!own) return account;
  const names = new Set(own.split(';').map((part) => part.trim().split('=')[0]));
  const added = account.split('; ').filter((part) => !names.has(part.split('=')[0]));
  return added.length > 0 ? `${own}; ${added.join('; ')}` : own;
}
