// A real Unfurl server for the client tests: the app on a fresh database, listening on a loopback
// socket, running its jobs, with the echo job kinds and their test routes, a loopback website and
// the video-platform replay server as the outside world.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { quietLogger } from '../support/quiet-logger.js';
import { freePort } from '../support/sockets.js';
import { registerTestKinds, testJobRoutes } from '../support/test-kinds.js';
import { startYouTubeReplay, type YouTubeReplay } from '../support/youtube-replay.js';

export interface ClientTestServer {
  t: TestApp;
  /** http://127.0.0.1:<port> of the listening API. */
  url: string;
  /** The loopback website (see SITE_PAGES). */
  site: Loopback;
  replay: YouTubeReplay;
  close(): Promise<void>;
}

/** Pages of the loopback website: /docs links to /docs/p/0 … /docs/p/(SITE_PAGES-1); /broken answers 500. */
export const SITE_PAGES = 120;

const doc = (title: string, body: string, links: string[] = []) =>
  `<html><head><title>${title}</title><meta name="description" content="About ${title}"></head>` +
  `<body><main><h1>${title}</h1><p>${body}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;

function site(delayMs: number): http.RequestListener {
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (status: number, body: string, type = 'text/html; charset=utf-8') =>
      setTimeout(() => res.writeHead(status, { 'content-type': type }).end(body), delayMs);
    if (path === '/broken') return send(500, doc('Oops', 'The server broke.'));
    if (path === '/robots.txt') return send(200, 'User-agent: *\nAllow: /\n', 'text/plain');
    if (path === '/docs' || path === '/docs/') {
      const links = Array.from({ length: SITE_PAGES }, (_, i) => `/docs/p/${i}`);
      return send(200, doc('Docs home', 'The start of the documentation.', links));
    }
    const m = /^\/docs\/p\/(\d+)$/.exec(path);
    if (m && Number(m[1]) < SITE_PAGES) {
      return send(200, doc(`Page ${m[1]}`, `Text of page number ${m[1]}, with some words to keep.`));
    }
    return send(404, doc('Not found', 'Nothing here.'));
  };
}

export async function startClientTestServer(
  overrides: Record<string, string> = {},
  opts: { siteDelayMs?: number; publicUrlIsSelf?: boolean; everyWebHostIsSite?: boolean } = {},
): Promise<ClientTestServer> {
  const web = await startServer(site(opts.siteDelayMs ?? 2));
  const replay = await startYouTubeReplay();
  // Links the server writes into answers (`next`, files) point at this server itself.
  const port = opts.publicUrlIsSelf ? await freePort() : 0;
  const t = await createTestApp(
    {
      ...(port && { UNFURL_PUBLIC_URL: `http://127.0.0.1:${port}` }),
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      // Docs' examples name https://example.com/…: every web host then reaches the loopback website.
      ...(opts.everyWebHostIsSite && { UNFURL_UPSTREAM_WEB: web.url }),
      UNFURL_UPSTREAM_YOUTUBE: replay.url,
      UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
      UNFURL_JOB_POLL_MS: '50',
      UNFURL_JOB_BACKOFF_MS: '50',
      ...overrides,
    },
    { extraRoutes: testJobRoutes },
  );
  registerTestKinds(t.services.jobs.registry);
  let processing: JobProcessing | undefined;
  try {
    processing = await startJobProcessing(t.services, quietLogger);
    await t.app.listen({ port, host: '127.0.0.1' });
  } catch (err) {
    await processing?.stop();
    await t.close();
    await web.close();
    await replay.close();
    throw err;
  }
  const listening = (t.app.server.address() as AddressInfo).port;
  return {
    t,
    url: `http://127.0.0.1:${listening}`,
    site: web,
    replay,
    async close() {
      await processing?.stop();
      await t.close();
      await web.close();
      await replay.close();
    },
  };
}
