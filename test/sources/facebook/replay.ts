// A loopback stand-in for the social network: the constructed watch/reel pages of
// test/fixtures-constructed/facebook, share/ and fb.watch redirects, a login wall, caption files and
// media files. Tests point UNFURL_UPSTREAM_FACEBOOK at it.
import fs from 'node:fs';
import path from 'node:path';
import { type Loopback, startServer } from '../../support/loopback.js';

export const CONSTRUCTED_FB = path.resolve(import.meta.dirname, '../../fixtures-constructed/facebook');
export const WATCH_ID = '10153231379946729';
export const REEL_ID = '1234567890123456';
export const QUIET_ID = '20000000000000001';
export const LOGIN_ID = '30000000000000003';

export interface FacebookReplay extends Loopback {
  requests: Array<{ path: string; search: string; referer: string }>;
}

export async function startFacebookReplay(): Promise<FacebookReplay> {
  const requests: FacebookReplay['requests'] = [];
  const server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({ path: url.pathname, search: url.search, referer: String(req.headers.referer ?? '') });
    const file = (name: string, type: string) => {
      res.writeHead(200, { 'content-type': type });
      res.end(fs.readFileSync(path.join(CONSTRUCTED_FB, name)));
    };
    const redirect = (to: string) => {
      res.writeHead(302, { location: to });
      res.end();
    };
    if (url.pathname === '/watch/' || url.pathname === '/watch') {
      const v = url.searchParams.get('v');
      if (v === WATCH_ID) return file(`watch-${WATCH_ID}.html`, 'text/html');
      if (v === QUIET_ID) return file(`no-captions-${QUIET_ID}.html`, 'text/html');
      if (v === LOGIN_ID) return redirect(`https://www.facebook.com/login/?next=%2Fwatch%2F%3Fv%3D${v}`);
      return file('unavailable.html', 'text/html');
    }
    if (url.pathname === `/reel/${REEL_ID}`) return file(`reel-${REEL_ID}.html`, 'text/html');
    if (url.pathname === '/share/v/1AbCdEf/')
      return redirect(`https://m.facebook.com/watch/?v=${WATCH_ID}&rdid=constructed`);
    if (url.pathname === '/share/r/2GhIjK/') return redirect(`/reel/${REEL_ID}/?mibextid=x`);
    if (url.pathname === '/fbWatch1/') return redirect(`https://www.facebook.com/watch/?v=${WATCH_ID}`);
    if (url.pathname === '/video/captions/constructed/en_US.srt')
      return file('captions-en_US.srt', 'text/plain');
    if (url.pathname === '/v/t39/captions/constructed_es_LA.vtt')
      return file('captions-es_LA.vtt', 'text/vtt');
    if (url.pathname === '/v/t39/captions/constructed_reel.vtt') return file('captions-reel.vtt', 'text/vtt');
    if (/\/constructed_\w+\.mp4$/.test(url.pathname)) {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      return res.end(Buffer.alloc(2048, 3));
    }
    res.writeHead(404);
    res.end();
  });
  return Object.assign(server, { requests });
}
