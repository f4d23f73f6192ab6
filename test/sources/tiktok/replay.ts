// A loopback stand-in for the short-video site: video pages (the real capture of
// ../shared/fixtures/tiktok and the constructed pages of test/fixtures-constructed/tiktok), the WAF
// proof-of-work page plain clients get first (a fresh random challenge, checked on the way back),
// short-link redirects, caption files and media files (which want the page's cookie and referer).
// Tests point UNFURL_UPSTREAM_TIKTOK at it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Loopback, startServer } from '../../support/loopback.js';

export const SHARED_TIKTOK = path.resolve(
  import.meta.dirname,
  '../../../../shared/fixtures/tiktok/metascraper',
);
export const CONSTRUCTED_TIKTOK = path.resolve(import.meta.dirname, '../../fixtures-constructed/tiktok');
export const CAPTURED_ID = '7571863205253778710';
export const NO_CAPTIONS_ID = '7400000000000000001';
export const PRIVATE_ID = '7400000000000000216';
export const GONE_ID = '7400000000000000204';
/** A page the site sends to its login page. */
export const LOGIN_ID = '7400000000000000401';
const CHAIN_TOKEN = 'constructed-chain-token';

const read = (dir: string, name: string) => fs.readFileSync(path.join(dir, name));

export interface TikTokReplay extends Loopback {
  requests: Array<{ method: string; path: string; cookie: string; referer: string; ua: string }>;
  /** waf: answer page requests with the challenge until it is solved (default true); counts of
   * challenges issued and of pages served after an accepted answer; 'always' never lets one pass. */
  state: { waf: boolean | 'always'; issued: number; solved: number; media?: Buffer };
}

/** A WAF page in the platform's layout: the challenge JSON base64-encoded in the class of id="cs". */
export function wafPage(prefix: Buffer, answer: number): string {
  const digest = crypto.createHash('sha256').update(prefix).update(String(answer)).digest();
  const payload = {
    v: { a: prefix.toString('base64'), c: digest.toString('base64') },
    s: 'constructed',
    t: 1,
  };
  const cs = Buffer.from(JSON.stringify(payload)).toString('base64');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Please wait...</title></head><body>
<p id="wci" class="_wafchallengeid"></p><p id="cs" class="${cs}"></p><p id="rci" class="waforiginalreid"></p>
<p id="rs" class="constructed-rs"></p><script src="/waf-aiso/challenge.js"></script></body></html>`;
}

export async function startTikTokReplay(): Promise<TikTokReplay> {
  const requests: TikTokReplay['requests'] = [];
  const issued = new Map<string, number>(); // prefix (base64) → its answer
  const state: TikTokReplay['state'] = { waf: true, issued: 0, solved: 0 };
  const cookieOf = (header: string, name: string) =>
    header
      .split(/;\s*/)
      .find((c) => c.startsWith(`${name}=`))
      ?.slice(name.length + 1) ?? null;

  const solved = (cookie: string): boolean => {
    const raw = cookieOf(cookie, '_wafchallengeid');
    if (!raw || cookieOf(cookie, 'waforiginalreid') !== 'constructed-rs') return false;
    try {
      const json = JSON.parse(Buffer.from(raw, 'base64').toString('utf8'));
      const answer = issued.get(json.v.a);
      return answer !== undefined && Buffer.from(json.d, 'base64').toString('utf8') === String(answer);
    } catch {
      return false;
    }
  };

  const server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const cookie = String(req.headers.cookie ?? '');
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      cookie,
      referer: String(req.headers.referer ?? ''),
      ua: String(req.headers['user-agent'] ?? ''),
    });
    const html = (body: Buffer | string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(body);
    };
    if (url.pathname === '/ZMshort1/' || url.pathname === '/t/ZTshort2/') {
      res.writeHead(301, { location: `https://www.tiktok.com/@illojuan/video/${CAPTURED_ID}?_r=1&_t=x` });
      return res.end();
    }
    const video = /^\/@[^/]*\/video\/(\d+)$/.exec(url.pathname);
    if (video) {
      if (video[1] === LOGIN_ID) {
        res.writeHead(302, {
          location: `https://www.tiktok.com/login?redirect_url=${encodeURIComponent(url.pathname)}`,
        });
        return res.end();
      }
      if (state.waf === 'always' || (state.waf && !solved(cookie))) {
        const prefix = crypto.randomBytes(12);
        const answer = crypto.randomInt(0, 20_000);
        issued.set(prefix.toString('base64'), answer);
        state.issued++;
        return html(wafPage(prefix, answer));
      }
      if (state.waf) state.solved++;
      const headers = { 'set-cookie': `tt_chain_token=${CHAIN_TOKEN}; Path=/; Domain=.tiktok.com; HttpOnly` };
      const id = video[1]!;
      if (id === CAPTURED_ID) return html(read(SHARED_TIKTOK, `video-${CAPTURED_ID}.html`), headers);
      if (id === NO_CAPTIONS_ID) return html(read(CONSTRUCTED_TIKTOK, 'page-no-captions.html'), headers);
      if (id === PRIVATE_ID) return html(read(CONSTRUCTED_TIKTOK, 'page-status-10216.html'), headers);
      return html(read(CONSTRUCTED_TIKTOK, 'page-status-10204.html'), headers);
    }
    // Caption files: the captured page's signed URLs, by the object id in their path.
    const captions: Record<string, string> = {
      '853675b240b74d059967ab5119ecc2a4': 'captions-eng-US.vtt',
      '0b8bf558f39e4a639dadf063da88f7da': 'captions-spa-ES.vtt',
    };
    const track = Object.keys(captions).find((k) => url.pathname.includes(k));
    if (track) {
      res.writeHead(200, { 'content-type': 'text/vtt' });
      return res.end(read(CONSTRUCTED_TIKTOK, captions[track]!));
    }
    if (url.pathname.startsWith('/video/tos/') || url.pathname.startsWith('/aweme/v1/play/')) {
      if (
        cookieOf(cookie, 'tt_chain_token') !== CHAIN_TOKEN ||
        !String(req.headers.referer ?? '').includes('/video/')
      ) {
        res.writeHead(403);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'video/mp4' });
      return res.end(state.media ?? Buffer.alloc(64 * 1024, 1));
    }
    res.writeHead(404);
    res.end();
  });
  return Object.assign(server, { requests, state });
}
