// Outbound HTTP for everything the service fetches on a caller's behalf (pages, media, webhooks):
// http(s) only, every resolved address checked at connect time, redirects re-checked hop by hop,
// and caps on time and size.
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher, request } from 'undici';
import { AppError } from '../errors.js';
import { isPublicAddress } from './ip-policy.js';

export interface SafeFetchOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Redirects to follow (each hop is re-checked); 0 treats a redirect as the answer. */
  maxRedirects?: number;
  timeoutMs?: number;
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The URL of the final hop. */
  url: string;
}

export class BlockedAddressError extends Error {
  readonly code = 'UNFURL_BLOCKED_ADDRESS';
}

/** Looks up every address of a host and refuses the connection if any one of them is not public. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => !allowPrivate && !isPublicAddress(a.address));
      if (bad || list.length === 0) {
        return callback(new BlockedAddressError(`${hostname} resolves to a non-public address`), '', 4);
      }
      if ((options as { all?: boolean }).all)
        return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export class SafeFetcher {
  private readonly agent: Agent;

  constructor(private readonly allowPrivateNetwork: boolean) {
    this.agent = new Agent({
      connect: { lookup: guardedLookup(allowPrivateNetwork), timeout: 10_000 },
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
        `Invalid parameter '${param}': private or reserved address`,
        param,
      );
    }
    if (!this.allowPrivateNetwork && /(^|\.)(localhost|localdomain|internal)$/i.test(host)) {
      throw new AppError('invalid_request', `Invalid parameter '${param}': private host name`, param);
    }
    return url;
  }

  async fetch(rawUrl: string, options: SafeFetchOptions = {}): Promise<SafeResponse> {
    const maxRedirects = options.maxRedirects ?? 5;
    const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let url = this.checkUrl(rawUrl, 'url');
    let method = options.method ?? 'GET';
    let body = options.body;
    for (let hop = 0; ; hop++) {
      const res = await request(url, {
        method,
        headers: options.headers,
        body,
        signal,
        dispatcher: this.agent as Dispatcher,
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && location && hop < maxRedirects) {
        await res.body.dump();
        url = this.checkUrl(new URL(String(location), url).toString(), 'url');
        if (
          res.statusCode === 303 ||
          ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
        ) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          res.body.destroy();
          throw new AppError(
            'payload_too_large',
            `The response from ${url.host} is larger than ${maxBytes} bytes`,
          );
        }
        chunks.push(chunk as Buffer);
      }
      return {
        status: res.statusCode,
        headers: res.headers,
        body: Buffer.concat(chunks),
        url: url.toString(),
      };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
