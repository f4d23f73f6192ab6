// A host name that does not resolve fails at once, saying so: no retries (the name will not exist on
// the next try) and no talk of blocks. On the open web the host is the caller's input (400 naming
// url, as for a name that resolves to a private address); a platform's own host is this server's
// trouble (502). A resolver that is down for a moment is another matter: that is still retried.
//
// An injected resolver stands in for the world's DNS (it counts the questions); the fetcher, the
// retry loop and the page fetch are the real ones. A loopback site plays a page that redirects away.
import type dns from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { errorStatus } from '../../src/http/error-status.js';
import { type HostLookup, SafeFetcher } from '../../src/net/safe-fetch.js';
import { Upstreams } from '../../src/net/upstream.js';
import { fetchDocument } from '../../src/sources/web/fetch-page.js';
import { type Loopback, startServer } from '../support/loopback.js';

/** How getaddrinfo's failures look to Node: a code and the name asked for. */
const dnsError = (code: string, hostname: string) =>
  Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code, hostname, syscall: 'getaddrinfo' });

let site: Loopback;
const asked: string[] = [];
let resolverDown = false;

const worldDns: HostLookup = async (hostname) => {
  asked.push(hostname);
  if (resolverDown) throw dnsError('EAI_AGAIN', hostname);
  const known: Record<string, dns.LookupAddress[]> = {
    'site.example': [{ address: '127.0.0.1', family: 4 }],
  };
  const found = known[hostname];
  if (!found) throw dnsError('ENOTFOUND', hostname);
  return found;
};

// Private addresses allowed so that `site.example` (loopback) can play a public site; the names
// that do not resolve never reach an address check at all.
const fetcher = () => new SafeFetcher({ allowPrivateNetwork: true, lookup: worldDns, timeoutMs: 5000 });

beforeAll(async () => {
  site = await startServer((req, res) => {
    if (req.url === '/moved') return res.writeHead(301, { location: 'http://gone.invalid/new-home' }).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Here</title><p>here</p>');
  });
});

afterAll(async () => {
  await site?.close();
});

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('a host name that does not resolve', () => {
  it('fails a page fetch at once with 400 naming url and the host, asking DNS once', async () => {
    asked.length = 0;
    const up = new Upstreams({}, fetcher(), 50);
    const err = await failure(fetchDocument(up, 'http://no-such-host.invalid/page', { attempts: 3 }));
    expect(err).toMatchObject({ code: 'invalid_request', details: 'url' });
    expect(errorStatus[(err as AppError).code]).toBe(400);
    expect(err.message).toBe(
      "Invalid parameter 'url': the host no-such-host.invalid does not resolve (DNS: not found)",
    );
    expect(err.message).not.toMatch(/blocked|attempts/);
    expect(asked).toEqual(['no-such-host.invalid']);
  });

  it('names the host a redirect leads to, not the one asked for', async () => {
    asked.length = 0;
    const up = new Upstreams({}, fetcher(), 50);
    const url = `http://site.example:${site.port}/moved`;
    expect((await fetchDocument(up, `http://site.example:${site.port}/`)).status).toBe(200);
    const err = await failure(fetchDocument(up, url, { attempts: 3 }));
    expect(err).toMatchObject({ code: 'invalid_request', details: 'url' });
    expect(err.message).toContain('the host gone.invalid does not resolve');
    expect(asked.filter((h) => h === 'gone.invalid')).toHaveLength(1);
  });

  it("is a 502 at once when it is a platform's own host: this server's DNS, not the caller's input", async () => {
    asked.length = 0;
    const up = new Upstreams({}, fetcher(), 50);
    const err = await failure(up.fetch('youtube', 'https://www.youtube.com/watch?v=abc'));
    expect(err).toMatchObject({ code: 'upstream_error' });
    expect(errorStatus[(err as AppError).code]).toBe(502);
    expect(err.message).toBe('youtube: the host www.youtube.com does not resolve (DNS: not found)');
    expect(asked).toEqual(['www.youtube.com']);
  });

  it('is not a resolver that is down for a moment: that is still retried, and said as a failure', async () => {
    asked.length = 0;
    resolverDown = true;
    try {
      const up = new Upstreams({}, fetcher(), 10);
      const err = await failure(fetchDocument(up, `http://site.example:${site.port}/`, { attempts: 3 }));
      expect(err).toMatchObject({ code: 'upstream_error' });
      expect(errorStatus[(err as AppError).code]).toBe(502);
      expect(err.message).toContain('after 3 attempts (last: getaddrinfo EAI_AGAIN site.example)');
      expect(asked).toEqual(['site.example', 'site.example', 'site.example']);
    } finally {
      resolverDown = false;
    }
  });
});
