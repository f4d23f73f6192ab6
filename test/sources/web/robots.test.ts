// robots.txt read from real loopback sites: groups, wildcards, Crawl-delay, Sitemap lines, and what
// a missing, failing or redirected file means.
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeFetcher } from '../../../src/net/safe-fetch.js';
import { Upstreams } from '../../../src/net/upstream.js';
import { CRAWLER_AGENT, fetchRobots } from '../../../src/sources/web/robots.js';
import { type Loopback, startServer } from '../../support/loopback.js';

const fetcher = new SafeFetcher({ allowPrivateNetwork: true, timeoutMs: 5000 });
const upstreams = new Upstreams({}, fetcher, 10);

/** A site whose /robots.txt is answered by `robots`; counts the requests for it. */
async function site(robots: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const hits: string[] = [];
  const server = await startServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/robots.txt') return robots(req, res);
    res.writeHead(404).end();
  });
  servers.push(server);
  return { server, hits };
}

const text = (body: string) => (_req: http.IncomingMessage, res: http.ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(body);

const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await fetcher.close();
});

describe('fetchRobots', () => {
  let origin: string;
  beforeAll(async () => {
    const { server } = await site(
      text(
        [
          '# everyone',
          'User-agent: *',
          'Disallow: /private',
          'Crawl-delay: 2',
          '',
          `User-agent: ${CRAWLER_AGENT}/1.0`,
          'Disallow: /no-unfurl',
          'Allow: /no-unfurl/ok',
          'Disallow: /*.pdf$',
          'Disallow: /search?*q=',
          'Crawl-delay: 30',
          '',
          'Sitemap: /sitemap-a.xml',
          'Sitemap: https://cdn.example.com/maps/sm.xml.gz#frag',
          'Sitemap: https://cdn.example.com/maps/sm.xml.gz',
          'Sitemap: mailto:nobody@example.com',
        ].join('\r\n'),
      ),
    );
    origin = server.url;
  });

  it('uses the UnfurlBot group instead of *, with wildcards, $ and the longest match', async () => {
    const rules = await fetchRobots(upstreams, `${origin}/some/page?x=1`);
    // Our group replaces `*` entirely: /private is only forbidden to others.
    expect(rules.isAllowed(`${origin}/private/x`)).toBe(true);
    expect(rules.isAllowed(`${origin}/no-unfurl`)).toBe(false);
    expect(rules.isAllowed(`${origin}/no-unfurl/deeper`)).toBe(false);
    expect(rules.isAllowed(`${origin}/no-unfurl/ok/1`)).toBe(true);
    expect(rules.isAllowed(`${origin}/docs/a.pdf`)).toBe(false);
    expect(rules.isAllowed(`${origin}/docs/a.pdf?download=1`)).toBe(true);
    expect(rules.isAllowed(`${origin}/search?lang=en&q=cats`)).toBe(false);
    expect(rules.isAllowed(`${origin}/search?lang=en`)).toBe(true);
    expect(rules.isAllowed(`${origin}/`)).toBe(true);
    // Another origin is not this file's to judge.
    expect(rules.isAllowed('http://elsewhere.example/no-unfurl')).toBe(true);
  });

  it('caps Crawl-delay at 10 s and resolves, normalises and dedupes Sitemap lines', async () => {
    const rules = await fetchRobots(upstreams, origin);
    expect(rules.crawlDelayMs).toBe(10_000);
    expect(rules.sitemaps).toEqual([`${origin}/sitemap-a.xml`, 'https://cdn.example.com/maps/sm.xml.gz']);
  });

  it('falls back to the * group and its Crawl-delay', async () => {
    const { server } = await site(
      text('User-agent: OtherBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\nCrawl-delay: 0.5\n'),
    );
    const rules = await fetchRobots(upstreams, server.url);
    expect(rules.isAllowed(`${server.url}/private/x`)).toBe(false);
    expect(rules.isAllowed(`${server.url}/public`)).toBe(true);
    expect(rules.crawlDelayMs).toBe(500);
    expect(rules.sitemaps).toEqual([]);
  });

  it('allows everything when there is no file (404) or it is forbidden (403)', async () => {
    for (const status of [404, 403]) {
      const { server, hits } = await site((_req, res) => res.writeHead(status).end('nope'));
      const rules = await fetchRobots(upstreams, server.url);
      expect(rules.isAllowed(`${server.url}/anything`)).toBe(true);
      expect(rules.crawlDelayMs).toBeNull();
      expect(rules.sitemaps).toEqual([]);
      expect(hits).toEqual(['/robots.txt']);
    }
  });

  it('fails open on a server error, once, without retrying', async () => {
    const { server, hits } = await site((_req, res) => res.writeHead(500).end('Disallow: /'));
    const rules = await fetchRobots(upstreams, server.url);
    expect(rules.isAllowed(`${server.url}/anything`)).toBe(true);
    expect(rules.sitemaps).toEqual([]);
    expect(hits).toEqual(['/robots.txt']);
  });

  it('fails open when the site cannot be reached', async () => {
    const gone = await startServer((_req, res) => res.end());
    const url = gone.url;
    await gone.close();
    const rules = await fetchRobots(upstreams, url);
    expect(rules.isAllowed(`${url}/x`)).toBe(true);
  });

  it('follows a redirect, and the rules still apply to the origin asked about', async () => {
    const target = await startServer((req, res) => {
      if (req.url === '/real-robots.txt')
        return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /secret\n');
      res.writeHead(404).end();
    });
    servers.push(target);
    const { server } = await site((_req, res) =>
      res.writeHead(301, { location: `${target.url}/real-robots.txt` }).end(),
    );
    const rules = await fetchRobots(upstreams, server.url);
    expect(rules.isAllowed(`${server.url}/secret/1`)).toBe(false);
    expect(rules.isAllowed(`${server.url}/open`)).toBe(true);
  });

  it('reads only the first 512 KiB, dropping the line cut in half', async () => {
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(530);
    const { server } = await site(text(`User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`));
    const rules = await fetchRobots(upstreams, server.url);
    expect(rules.isAllowed(`${server.url}/early`)).toBe(false);
    expect(rules.isAllowed(`${server.url}/late`)).toBe(true);
  });

  it("throws the caller's abort instead of allowing everything", async () => {
    const { server } = await site(() => {
      // never answers
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(fetchRobots(upstreams, server.url, { signal: controller.signal })).rejects.toThrow(
      'caller gave up',
    );
  });
});
