// Fetching one web document on a caller's behalf: SSRF-guarded (through Upstreams, so proxies and
// retries on blocks apply), decoded by the browser's charset rules, and sorted by what it is.
import { AppError } from '../../errors.js';
import { decodeBody } from '../../net/charset.js';
import type { SafeResponse } from '../../net/safe-fetch.js';
import type { Upstreams } from '../../net/upstream.js';
import { detectChallenge } from './challenge.js';

/** A current desktop browser's identity: many sites refuse or degrade unknown clients. */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export type DocumentKind = 'html' | 'text' | 'pdf' | 'binary';

export interface FetchedDocument {
  /** The URL of the final hop. */
  url: string;
  status: number;
  headers: SafeResponse['headers'];
  contentType: string | null;
  kind: DocumentKind;
  /** Decoded text for html and text documents; '' otherwise. */
  text: string;
  body: Buffer;
  truncated: boolean;
}

export interface FetchDocumentOptions {
  /** Sent as Accept-Language. */
  lang?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Tries, counting the first (proxies rotate between them). */
  attempts?: number;
  /** Cut at the fetch cap instead of failing (crawl, map). */
  truncate?: boolean;
}

const TEXT_TYPES = new Set([
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'text/csv',
  'text/xml',
  'application/xml',
  'application/json',
  'application/ld+json',
  'application/rss+xml',
  'application/atom+xml',
  'application/javascript',
  'text/javascript',
  'text/css',
]);

/** What a body is, from its declared type and, where that is missing or generic, its first bytes. */
export function documentKind(contentType: string | null, body: Buffer): DocumentKind {
  const start = body.subarray(0, 1024);
  if (start.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (contentType === 'application/pdf') return 'pdf';
  if (contentType === 'text/html' || contentType === 'application/xhtml+xml') return 'html';
  if (contentType && (TEXT_TYPES.has(contentType) || contentType.endsWith('+json'))) return 'text';
  if (contentType && /^(image|audio|video|font|model)\//.test(contentType)) return 'binary';
  if (start.includes(0)) return 'binary';
  const lead = start
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart();
  if (/^<(?:!doctype html|html|head|body|meta|title|div|p|!--)/i.test(lead)) return 'html';
  if (contentType?.startsWith('text/')) return 'text';
  return lead.startsWith('<') ? 'html' : 'text';
}

/** The error a non-success answer from a site means to our caller. */
export function statusError(status: number, url: string): AppError {
  const host = new URL(url).host;
  if (status === 404 || status === 410)
    return new AppError('not_found', `${host} answered ${status}: no such page`);
  return new AppError('upstream_error', `${host} answered HTTP ${status}`);
}

/** An anti-bot wall stood where the page should be (a browser may still get through). */
export class ChallengeError extends AppError {
  constructor(
    host: string,
    readonly vendor: string,
  ) {
    super('upstream_error', `${host} answered with an anti-bot challenge (${vendor}) instead of the page`);
  }
}

export function decodeDocument(res: SafeResponse): FetchedDocument {
  const kind = documentKind(res.contentType, res.body);
  const contentTypeHeader = res.headers['content-type'];
  const text =
    kind === 'html' || kind === 'text'
      ? decodeBody(res.body, typeof contentTypeHeader === 'string' ? contentTypeHeader : null, {
          sniffMeta: kind === 'html' || res.contentType?.includes('xml') === true,
        }).text
      : '';
  return {
    url: res.url,
    status: res.status,
    headers: res.headers,
    contentType: res.contentType,
    kind,
    text,
    body: res.body,
    truncated: res.truncated,
  };
}

/**
 * Fetches `url` and answers the document; a 404/410 is not_found, another failure status or an
 * anti-bot wall is upstream_error (retried first through the next proxy, if any).
 */
export async function fetchDocument(
  upstreams: Upstreams,
  url: string,
  options: FetchDocumentOptions = {},
): Promise<FetchedDocument> {
  const headers: Record<string, string> = {
    'user-agent': BROWSER_USER_AGENT,
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5',
    'accept-language': options.lang ? `${options.lang},*;q=0.5` : 'en;q=0.9,*;q=0.5',
  };
  let wall: string | null = null;
  let last: FetchedDocument | null = null;
  const res = await upstreams
    .fetch('web', url, {
      headers,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      truncate: options.truncate,
      attempts: options.attempts,
      blocked: (r) => {
        last = decodeDocument(r);
        wall =
          last.kind === 'html' || last.kind === 'text' ? detectChallenge({ ...r, html: last.text }) : null;
        return wall !== null;
      },
    })
    .catch((err: unknown) => {
      if (wall) throw new ChallengeError(new URL(url).host, wall);
      throw err;
    });
  const doc: FetchedDocument =
    last && (last as FetchedDocument).body === res.body ? last : decodeDocument(res);
  if (doc.status >= 400) throw statusError(doc.status, doc.url);
  return doc;
}
