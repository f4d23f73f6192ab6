// A loopback stand-in for the photo-sharing site: the home page (a captured logged-out page of
// ../shared/fixtures/instagram, for its LSD token), the logged-out GraphQL post query answered from
// the constructed answers of test/fixtures-constructed/instagram by media id (the request checked
// the way the site checks it), share/ redirects and media files. Tests point UNFURL_UPSTREAM_INSTAGRAM at it.
import fs from 'node:fs';
import path from 'node:path';
import { type Loopback, startServer } from '../../support/loopback.js';

export const SHARED_IG = path.resolve(
  import.meta.dirname,
  '../../../../shared/fixtures/instagram/metascraper',
);
export const CONSTRUCTED_IG = path.resolve(import.meta.dirname, '../../fixtures-constructed/instagram');
/** The LSD token of the captured page served as the home page. */
export const CAPTURED_LSD = 'AVr3vGvlkM0';

export interface InstagramReplay extends Loopback {
  requests: Array<{ method: string; path: string; body: URLSearchParams; headers: Record<string, unknown> }>;
}

export async function startInstagramReplay(): Promise<InstagramReplay> {
  const requests: InstagramReplay['requests'] = [];
  const server = await startServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      requests.push({ method: req.method ?? '', path: url.pathname, body, headers: req.headers });
      if (url.pathname === '/' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(fs.readFileSync(path.join(SHARED_IG, 'p-CPQjO5RIIO9.video.html')));
      }
      if (url.pathname === '/api/graphql' && req.method === 'POST') {
        const ok =
          body.get('lsd') === CAPTURED_LSD &&
          req.headers['x-fb-lsd'] === CAPTURED_LSD &&
          req.headers['x-ig-app-id'] === '936619743392459' &&
          body.get('doc_id') === '27130156389949648';
        if (!ok) {
          res.writeHead(302, { location: 'https://www.instagram.com/accounts/login/' });
          return res.end();
        }
        const mediaId = String(JSON.parse(body.get('variables') ?? '{}').media_id ?? '');
        const file = path.join(CONSTRUCTED_IG, `graphql-${mediaId}.json`);
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(
          fs.readFileSync(fs.existsSync(file) ? file : path.join(CONSTRUCTED_IG, 'graphql-missing.json')),
        );
      }
      if (url.pathname === '/share/reel/BAxyz123/') {
        res.writeHead(302, { location: 'https://www.instagram.com/reel/CN2VQ1yI_MA/?igsh=x' });
        return res.end();
      }
      if (/^\/o1\/v\/t16\/.+\.mp4$/.test(url.pathname)) {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        return res.end(Buffer.alloc(1500, 9));
      }
      res.writeHead(404);
      res.end();
    });
  });
  return Object.assign(server, { requests });
}
