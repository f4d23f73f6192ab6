// A loopback stand-in for the microblog: the guest-token activation, the web GraphQL
// TweetResultByRestId (replaying the real captures of ../shared/fixtures/twitter/fxembed), the
// syndication tweet-result (constructed answers of test/fixtures-constructed/x), t.co redirects and
// video files. Tests point UNFURL_UPSTREAM_X at it.
import fs from 'node:fs';
import path from 'node:path';
import { syndicationToken } from '../../../src/sources/x/post.js';
import { type Loopback, startServer } from '../../support/loopback.js';

export const SHARED_X = path.resolve(import.meta.dirname, '../../../../shared/fixtures/twitter/fxembed');
export const CONSTRUCTED_X = path.resolve(import.meta.dirname, '../../fixtures-constructed/x');
export const BEARER = 'test-web-bearer';

export interface XReplay extends Loopback {
  requests: Array<{ method: string; path: string; query: URLSearchParams; headers: Record<string, unknown> }>;
  /** Post ids whose GraphQL answer is 429 (rate-limited): the client must fall back to syndication. */
  rateLimited: Set<string>;
  /** The bytes video files answer with (default: 4 KiB of filler). */
  media: { body: Buffer | null };
}

const graphqlFile = (id: string) => path.join(SHARED_X, 'TweetResultByRestId', `${id}.json`);
const syndicationFile = (id: string) => path.join(CONSTRUCTED_X, `tweet-result-${id}.json`);

export async function startXReplay(): Promise<XReplay> {
  const requests: XReplay['requests'] = [];
  const rateLimited = new Set<string>();
  const media: XReplay['media'] = { body: null };
  const server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    });
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (url.pathname === '/1.1/guest/activate.json' && req.method === 'POST') {
      if (req.headers.authorization !== `Bearer ${BEARER}`) return json(403, { errors: [{ code: 200 }] });
      return json(200, { guest_token: '1790000000000099999' });
    }
    if (/^\/i\/api\/graphql\/[^/]+\/TweetResultByRestId$/.test(url.pathname)) {
      if (
        req.headers.authorization !== `Bearer ${BEARER}` ||
        req.headers['x-guest-token'] !== '1790000000000099999'
      ) {
        return json(403, { errors: [{ message: 'Forbidden' }] });
      }
      const id = String(JSON.parse(url.searchParams.get('variables') ?? '{}').tweetId ?? '');
      if (rateLimited.has(id)) return json(429, { errors: [{ message: 'Rate limit exceeded' }] });
      if (fs.existsSync(graphqlFile(id))) return json(200, fs.readFileSync(graphqlFile(id), 'utf8'));
      return json(200, { data: { tweetResult: {} } }); // no such post
    }
    if (url.pathname === '/tweet-result') {
      const id = url.searchParams.get('id') ?? '';
      if (url.searchParams.get('token') !== syndicationToken(id)) return json(400, {});
      if (id === '1790000000000000404')
        return json(200, fs.readFileSync(syndicationFile('tombstone'), 'utf8'));
      if (fs.existsSync(syndicationFile(id))) return json(200, fs.readFileSync(syndicationFile(id), 'utf8'));
      res.writeHead(404);
      return res.end();
    }
    if (url.pathname === '/shortpost') {
      res.writeHead(301, { location: 'https://x.com/SpaceX/status/1848831595014459513' });
      return res.end();
    }
    // HLS playlists and caption segments of the videos (constructed).
    const hls: Record<string, string> = {
      '/ext_tw_video/1790000000000000555/pu/pl/master.m3u8': 'hls-master-captions.m3u8',
      '/ext_tw_video/1902059279190052864/pu/pl/897qARA__rNk63y5.m3u8': 'hls-master-plain.m3u8',
      '/ext_tw_video/1790000000000000555/pu/pl/subs/en.m3u8': 'hls-subs-en.m3u8',
      '/ext_tw_video/1790000000000000555/pu/pl/subs/es.m3u8': 'hls-subs-es.m3u8',
      '/ext_tw_video/1790000000000000555/pu/pl/subs/en-0.vtt': 'hls-subs-en-0.vtt',
      '/ext_tw_video/1790000000000000555/pu/pl/subs/en-1.vtt': 'hls-subs-en-1.vtt',
      '/ext_tw_video/1790000000000000555/pu/pl/subs/es-0.vtt': 'hls-subs-es-0.vtt',
    };
    const playlist = hls[url.pathname];
    if (playlist) {
      res.writeHead(200, {
        'content-type': playlist.endsWith('.vtt') ? 'text/vtt' : 'application/x-mpegURL',
      });
      return res.end(fs.readFileSync(path.join(CONSTRUCTED_X, playlist)));
    }
    if (url.pathname.startsWith('/ext_tw_video/')) {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      return res.end(media.body ?? Buffer.alloc(4096, 7));
    }
    res.writeHead(404);
    res.end();
  });
  return Object.assign(server, { requests, rateLimited, media });
}
