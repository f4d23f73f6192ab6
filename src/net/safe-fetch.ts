// Outbound HTTP for everything the service fetches on a caller's behalf (pages, media, webhooks):
// http(s) only, every resolved address checked at connect time, redirects re-checked hop by hop,
// and caps on time and size.
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { Agent, type Dispatcher, request } from 'undici';
import { AppError } from '../errors.js';
import { isPublicAddress } from './ip-policy.js';
import type { ProxyPool } from './proxies.js';

export interface SafeFetchOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Redirects to follow (each hop is re-checked; default 10); 0 treats a redirect as the answer. */
  maxRedirects?: number;
  /** The whole exchange, redirects and body included (default UNFURL_FETCH_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Body cap after decompression (default UNFURL_FETCH_MAX_BYTES); over it → 413, or cut with `truncate`. */
  maxBytes?: number;
  /** Cut the body at maxBytes and flag `truncated` instead of failing. */
  truncate?: boolean;
  signal?: AbortSignal;
  /** Go through the next proxy of UNFURL_PROXY_URLS (direct when none is configured). */
  proxy?: boolean;
  /** A specific dispatcher (the upstream client's proxy rotation); wins over `proxy`. */
  dispatcher?: Dispatcher;
}

export interface SafeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Decoded from gzip/deflate/brotli when the server compressed it. */
  body: Buffer;
  /** The URL of the final hop. */
  url: string;
  /** The URLs redirected from, in order. */
  redirects: string[];
  truncated: boolean;
  /** The media type, lower-cased, without parameters. */
  contentType: string | null;
}

export interface SafeStreamOptions {
  headers?: Record<string, string>;
  maxRedirects?: number;
  /** The whole exchange, body included (default: none beyond `signal`). */
  timeoutMs?: number;
  signal?: AbortSignal;
  proxy?: boolean;
  dispatcher?: Dispatcher;
}

export interface SafeStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, decoded when the server compressed it anyway; consume or destroy it. */
  body: Readable;
  url: string;
  redirects: string[];
  contentType: string | null;
  /** Content-Length when the server sent one (and did not compress). */
  contentLength: number | null;
}

/** Every address of a host name. */
export type HostLookup = (hostname: string) => Promise<dns.LookupAddress[]>;

const systemLookup: HostLookup = (hostname) => dns.promises.lookup(hostname, { all: true });

export interface SafeFetcherOptions {
  allowPrivateNetwork: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  proxies?: ProxyPool;
  /** Name resolution (default: the system's); tests stand in for the outside world's DNS with it. */
  lookup?: HostLookup;
}

/**
 * A host name that resolves to an address we may not reach. Only the caller's URL (or where it
 * redirects) can lead there, so it is their bad input: 400 naming the parameter, wherever it surfaces
 * (a route, a job's failure, a crawl's page failures, a media download).
 */
/** Said with every refusal of a private address: the switch an operator testing locally is looking for. */
const PRIVATE_HINT =
  ' (only public addresses are fetched; a server run for local tests can allow private ones with UNFURL_ALLOW_PRIVATE_NETWORK=true)';

export class BlockedAddressError extends AppError {
  constructor(host: string, param = 'url') {
    super(
      'invalid_request',
      `Invalid parameter '${param}': ${host} resolves to a non-public address${PRIVATE_HINT}`,
      param,
    );
    this.name = 'BlockedAddressError';
  }
}

/** A resolver's answer that the name has no address at all (NXDOMAIN, or no A/AAAA records). */
const NAME_NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * The host name a failed request could not resolve, when that is why it failed: asking again will
 * not make it exist. A resolver that is down or slow (EAI_AGAIN, a timeout) is not this.
 */
export function unresolvedHost(err: unknown, url: string): string | null {
  type DnsError = NodeJS.ErrnoException & { hostname?: unknown };
  // The resolver's own error, or the one a client wrapped it in (its `cause`).
  for (const e of [err, (err as Error | undefined)?.cause] as Array<DnsError | undefined>) {
    if (typeof e?.code === 'string' && NAME_NOT_FOUND.has(e.code)) {
      return typeof e.hostname === 'string' && e.hostname ? e.hostname : new URL(url).hostname;
    }
  }
  return null;
}

/**
 * A caller's host name that does not resolve: their input (the URL they sent, or where it leads),
 * so 400 naming the parameter, like a name that resolves to a private address.
 */
export class UnresolvedHostError extends AppError {
  constructor(host: string, param = 'url') {
    super(
      'invalid_request',
      `Invalid parameter '${param}': the host ${host} does not resolve (DNS: not found)`,
      param,
    );
    this.name = 'UnresolvedHostError';
  }
}

/** Looks up every address of a host and refuses the connection if any one of them is not public. */
function guardedLookup(allowPrivate: boolean, lookup: HostLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const list = family ? addresses.filter((a) => a.family === family) : addresses;
        const bad = list.find((a) => !allowPrivate && !isPublicAddress(a.address));
        if (bad || list.length === 0) {
          return callback(new BlockedAddressError(hostname), '', 4);
        }
        if ((options as { all?: boolean }).all)
          return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
        const first = list[0]!;
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };
}

/** Longest wait for a host name's addresses when a URL is checked ahead of use (webhook URLs). */
const RESOLVE_AT_SUBMIT_MS = 2000;

export class SafeFetcher {
  private readonly agent: Agent;
  private readonly allowPrivateNetwork: boolean;
  private readonly defaultTimeoutMs: number;
  private readonly defaultMaxBytes: number;
  private readonly lookup: HostLookup;
  readonly proxies: ProxyPool | null;

  constructor(options: SafeFetcherOptions) {
    this.allowPrivateNetwork = options.allowPrivateNetwork;
    this.defaultTimeoutMs = options.timeoutMs ?? 30_000;
    this.defaultMaxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.proxies = options.proxies ?? null;
    this.lookup = options.lookup ?? systemLookup;
    this.agent = new Agent({
      connect: { lookup: guardedLookup(this.allowPrivateNetwork, this.lookup), timeout: 10_000 },
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
      connections: 64,
    });
  }

  /** Throws invalid_request (naming `param`) unless `raw` is an http(s) URL we may fetch. */
  checkUrl(raw: string, param: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new AppError('invalid_request', `Invalid parameter '${param}': not a URL`, param);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AppError('invalid_request', `Invalid parameter '${param}': only http and https URLs`, param);
    }
    if (url.username || url.password) {
      throw new AppError(
        'invalid_request',
        `Invalid parameter '${param}': credentials in URLs are not allowed`,
        param,
      );
    }
    // Brackets of an IPv6 literal and the root dot of a fully qualified name ("localhost.") go.
    const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
    if (isIP(host) && !this.allowPrivateNetwork && !isPublicAddress(host)) {
      throw new AppError(
        'invalid_request',
        `Invalid parameter '${param}': private or reserved address${PRIVATE_HINT}`,
        param,
      );
    }
    if (!this.allowPrivateNetwork && /(^|\.)(localhost|localdomain|internal)$/i.test(host)) {
      throw new AppError(
        'invalid_request',
        `Invalid parameter '${param}': private host name${PRIVATE_HINT}`,
        param,
      );
    }
    return url;
  }

  /**
   * Through a proxy our connect-time lookup sees only the proxy, so the target's addresses are
   * checked here first (the proxy resolves again; operators choose proxies they trust).
   */
  private async checkResolvedHost(url: URL, param = 'url'): Promise<void> {
    if (this.allowPrivateNetwork) return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [{ address: host }] : await this.lookup(host);
    if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
      throw new BlockedAddressError(host, param);
    }
  }

  /**
   * checkUrl, and the addresses of the host name too when it resolves now (webhook URLs, which are
   * fetched much later): a name that does not resolve yet is accepted, since every connection is
   * checked again when it is made.
   */
  async checkResolvedUrl(raw: string, param: string): Promise<URL> {
    const url = this.checkUrl(raw, param);
    // A slow resolver must not hold the request: past the wait the name counts as not resolving yet.
    let timer: NodeJS.Timeout | undefined;
    const wait = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, RESOLVE_AT_SUBMIT_MS);
    });
    try {
      await Promise.race([this.checkResolvedHost(url, param), wait]);
    } catch (err) {
      if (err instanceof BlockedAddressError) throw err;
    } finally {
      clearTimeout(timer);
    }
    return url;
  }

  async fetch(rawUrl: string, options: SafeFetchOptions = {}): Promise<SafeResponse> {
    const maxBytes = options.maxBytes ?? this.defaultMaxBytes;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.defaultTimeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const { res, url, redirects } = await this.walk(rawUrl, {
      method: options.method ?? 'GET',
      headers: { 'accept-encoding': 'gzip, deflate, br', ...options.headers },
      body: options.body,
      maxRedirects: options.maxRedirects,
      signal,
      dispatcher: this.dispatcherFor(options),
    });
    const { body: bytes, truncated } = await readCapped(res.body, res.headers['content-encoding'], {
      maxBytes,
      truncate: options.truncate ?? false,
      host: url.host,
    });
    return {
      status: res.statusCode,
      headers: res.headers,
      body: bytes,
      url: url.toString(),
      redirects,
      truncated,
      contentType: mediaType(res.headers['content-type']),
    };
  }

  /**
   * Like fetch, but hands back the body as a stream instead of reading it (media files): the caller
   * counts and caps the bytes and must consume or destroy the body. Redirects are followed hop by hop
   * with the same checks; the signal (and timeoutMs, default none beyond the caller's) bounds the
   * whole exchange, body included.
   */
  async stream(rawUrl: string, options: SafeStreamOptions = {}): Promise<SafeStream> {
    const signals = [options.signal, options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined];
    const present = signals.filter((s): s is AbortSignal => Boolean(s));
    const { res, url, redirects } = await this.walk(rawUrl, {
      method: 'GET',
      // Media are already compressed: ask for them as they are so byte counts match the file.
      headers: { 'accept-encoding': 'identity', ...options.headers },
      maxRedirects: options.maxRedirects,
      signal: present.length ? AbortSignal.any(present) : undefined,
      dispatcher: this.dispatcherFor(options),
    });
    const length = Number(res.headers['content-length']);
    const decoder = decoderFor(res.headers['content-encoding']);
    if (decoder) res.body.on('error', (err) => decoder.destroy(err));
    return {
      status: res.statusCode,
      headers: res.headers,
      body: decoder ? res.body.pipe(decoder) : res.body,
      url: url.toString(),
      redirects,
      contentType: mediaType(res.headers['content-type']),
      contentLength: Number.isFinite(length) && length >= 0 && !decoder ? length : null,
    };
  }

  private dispatcherFor(options: { dispatcher?: Dispatcher; proxy?: boolean }): Dispatcher {
    return (
      options.dispatcher ?? (options.proxy && this.proxies ? this.proxies.next() : undefined) ?? this.agent
    );
  }

  /**
   * The one redirect walker of fetch() and stream(): sends the request, and while the answer is a
   * redirect (up to maxRedirects, default 10; past it the redirect is the answer) checks the next URL
   * as it checks the first, drops credentials once the walk leaves the origin, and turns the request
   * into a body-less GET where browsers do (303, and 301/302 after POST). Hands back the final answer
   * with its body unread.
   */
  private async walk(rawUrl: string, start: Walk): Promise<{ res: Answer; url: URL; redirects: string[] }> {
    const maxRedirects = start.maxRedirects ?? 10;
    const viaProxy = start.dispatcher !== this.agent;
    let { method, headers, body } = start;
    let url = this.checkUrl(rawUrl, 'url');
    const redirects: string[] = [];
    for (let hop = 0; ; hop++) {
      if (viaProxy) await this.checkResolvedHost(url);
      const options = { method, headers, body, signal: start.signal, dispatcher: start.dispatcher };
      const res = await request(url, options).catch((err: unknown) => {
        // A kept-alive connection the server closed while idle fails the next request before any
        // answer: an idempotent request is sent again once, on a fresh connection, as browsers do.
        if ((method === 'GET' || method === 'HEAD') && isStaleConnection(err) && !start.signal?.aborted) {
          return request(url, options);
        }
        throw err;
      });
      const location = res.headers.location;
      if (res.statusCode < 300 || res.statusCode >= 400 || !location || hop >= maxRedirects) {
        return { res, url, redirects };
      }
      await res.body.dump();
      redirects.push(url.toString());
      const next = this.checkUrl(new URL(String(location), url).toString(), 'url');
      // Cookies and credentials are for the origin they were given for, not wherever it redirects.
      if (next.origin !== url.origin) headers = without(headers, CREDENTIAL_HEADERS);
      if (
        res.statusCode === 303 ||
        ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
      ) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        headers = without(headers, BODY_HEADERS);
      }
      url = next;
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

interface Walk {
  method: 'GET' | 'POST' | 'HEAD';
  headers: Record<string, string>;
  body?: string | Buffer;
  maxRedirects?: number;
  signal?: AbortSignal;
  dispatcher: Dispatcher;
}

type Answer = Dispatcher.ResponseData;

/** Sent only to the origin they were meant for. */
const CREDENTIAL_HEADERS = new Set(['cookie', 'authorization', 'proxy-authorization']);
/** Describe a request body: they go with it when a redirect turns the request into a GET. */
const BODY_HEADERS = new Set(['content-type', 'content-encoding', 'content-language', 'content-location']);

function without(headers: Record<string, string>, names: ReadonlySet<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !names.has(k.toLowerCase())));
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
function mediaType(header: string | string[] | undefined): string | null {
  return typeof header === 'string' ? header.split(';')[0]!.trim().toLowerCase() || null : null;
}

function decoderFor(
  encoding: string | string[] | undefined,
): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  const value = (Array.isArray(encoding) ? encoding.join(',') : (encoding ?? '')).trim().toLowerCase();
  if (value === 'gzip' || value === 'x-gzip') return zlib.createGunzip();
  if (value === 'deflate') return zlib.createInflate();
  if (value === 'br') return zlib.createBrotliDecompress();
  return null; // identity, or an encoding we did not ask for: hand the bytes over as they are
}

const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);
const isStaleConnection = (err: unknown) =>
  STALE_CONNECTION_CODES.has((err as { code?: string } | null)?.code ?? '');

/** Reads a body (decompressing it), counting the decoded bytes against the cap. */
async function readCapped(
  raw: Readable,
  encoding: string | string[] | undefined,
  opts: { maxBytes: number; truncate: boolean; host: string },
): Promise<{ body: Buffer; truncated: boolean }> {
  const decoder = decoderFor(encoding);
  const stream: Readable = decoder ? raw.pipe(decoder) : raw;
  if (decoder) raw.on('error', (err) => decoder.destroy(err));
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      if (size + buf.length > opts.maxBytes) {
        if (!opts.truncate) {
          throw new AppError(
            'payload_too_large',
            `The response from ${opts.host} is larger than ${opts.maxBytes} bytes`,
          );
        }
        chunks.push(buf.subarray(0, opts.maxBytes - size));
        return { body: Buffer.concat(chunks), truncated: true };
      }
      size += buf.length;
      chunks.push(buf);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    if ((err as { code?: string }).code?.startsWith('Z_')) {
      throw new AppError('upstream_error', `The response from ${opts.host} is not validly compressed`);
    }
    throw err;
  } finally {
    raw.destroy();
    decoder?.destroy();
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
