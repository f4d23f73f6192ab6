// URL recognition across the registry: every common form of each platform's video and post URLs
// (tables), short links followed hop by hop through each platform's upstream override (a loopback
// redirector), and properties: any id survives any host/prefix/query combination, and no URL of
// another site is ever claimed.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../../src/services.js';
import { createTestEnv, type TestEnv } from '../../support/env.js';
import { type Loopback, startServer } from '../../support/loopback.js';

let env: TestEnv;
let services: Services;
let redirector: Loopback;
const hops: Array<{ method: string; path: string; ua: string }> = [];

/** Short link path → where it redirects (absolute URLs of the real hosts, as the platforms send). */
const REDIRECTS: Record<string, string> = {
  '/ZMabc123/': 'https://www.tiktok.com/@scout2015/video/6718335390845095173?_r=1&u_code=x',
  '/ZSxyz789/': 'https://vm.tiktok.com/ZMabc123/', // a short link to a short link
  '/t/ZTRmk1/': 'https://www.tiktok.com/@_/video/7571863205253778710',
  '/share/reel/BBq9sd1Ebx/': 'https://www.instagram.com/reel/CN2VQ1yI_MA/?igsh=abc',
  '/abcDEF123': 'https://twitter.com/jack/status/20',
  '/share/v/1AbCdEfGh/': 'https://m.facebook.com/watch/?v=10153231379946729&rdid=x',
  '/share/r/15XYZ/': '/reel/1234567890123456', // a relative location
  '/xYz12AbC/': 'https://www.facebook.com/login/?next=%2Fvideos', // fb.watch leading to a login
  '/dead/': '/gone',
  '/offsite1': 'https://news.example.com/article?utm=x', // a t.co link to another site
};

beforeAll(async () => {
  redirector = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hops.push({ method: req.method ?? '', path, ua: String(req.headers['user-agent'] ?? '') });
    const to = REDIRECTS[path];
    if (to) {
      res.writeHead(301, { location: to });
      return res.end();
    }
    res.writeHead(404);
    res.end();
  });
  env = await createTestEnv({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
    UNFURL_UPSTREAM_TIKTOK: redirector.url,
    UNFURL_UPSTREAM_INSTAGRAM: redirector.url,
    UNFURL_UPSTREAM_X: redirector.url,
    UNFURL_UPSTREAM_FACEBOOK: redirector.url,
  });
  services = await createServices(env.config);
});

afterAll(async () => {
  await services?.close();
  await env?.dispose();
  await redirector?.close();
});

const recognise = (url: string) => services.platforms.recognise(url);

const CASES: Array<[string, string, string, string]> = [
  // [url, platform, id, canonical url]
  [
    'https://www.youtube.com/watch?v=GJLlxj_dtq8&t=10s',
    'youtube',
    'GJLlxj_dtq8',
    'https://www.youtube.com/watch?v=GJLlxj_dtq8',
  ],
  [
    'https://youtu.be/GJLlxj_dtq8?si=abc',
    'youtube',
    'GJLlxj_dtq8',
    'https://www.youtube.com/watch?v=GJLlxj_dtq8',
  ],
  [
    'https://m.youtube.com/shorts/GJLlxj_dtq8',
    'youtube',
    'GJLlxj_dtq8',
    'https://www.youtube.com/watch?v=GJLlxj_dtq8',
  ],
  [
    'https://www.tiktok.com/@scout2015/video/6718335390845095173',
    'tiktok',
    '6718335390845095173',
    'https://www.tiktok.com/@scout2015/video/6718335390845095173',
  ],
  [
    'https://tiktok.com/@scout2015/video/6718335390845095173?is_from_webapp=1&sender_device=pc',
    'tiktok',
    '6718335390845095173',
    'https://www.tiktok.com/@scout2015/video/6718335390845095173',
  ],
  [
    'https://www.tiktok.com/@/video/6718335390845095173/',
    'tiktok',
    '6718335390845095173',
    'https://www.tiktok.com/@_/video/6718335390845095173',
  ],
  [
    'https://m.tiktok.com/v/6718335390845095173.html',
    'tiktok',
    '6718335390845095173',
    'https://www.tiktok.com/@_/video/6718335390845095173',
  ],
  [
    'https://www.tiktok.com/embed/v2/6718335390845095173',
    'tiktok',
    '6718335390845095173',
    'https://www.tiktok.com/@_/video/6718335390845095173',
  ],
  [
    'https://www.tiktok.com/embed/6718335390845095173',
    'tiktok',
    '6718335390845095173',
    'https://www.tiktok.com/@_/video/6718335390845095173',
  ],
  [
    'https://www.tiktokv.com/share/video/6718335390845095173/',
    'tiktok',
    '6718335390845095173',
    'https://www.tiktok.com/@_/video/6718335390845095173',
  ],
  [
    'https://www.instagram.com/p/CPQjO5RIIO9/',
    'instagram',
    'CPQjO5RIIO9',
    'https://www.instagram.com/p/CPQjO5RIIO9/',
  ],
  [
    'https://instagram.com/reel/CN2VQ1yI_MA?igsh=MWQ1ZGUxMzBkMA==',
    'instagram',
    'CN2VQ1yI_MA',
    'https://www.instagram.com/reel/CN2VQ1yI_MA/',
  ],
  [
    'https://www.instagram.com/reels/CN2VQ1yI_MA/',
    'instagram',
    'CN2VQ1yI_MA',
    'https://www.instagram.com/reel/CN2VQ1yI_MA/',
  ],
  [
    'https://www.instagram.com/tv/CN2VQ1yI_MA/',
    'instagram',
    'CN2VQ1yI_MA',
    'https://www.instagram.com/tv/CN2VQ1yI_MA/',
  ],
  [
    'https://www.instagram.com/jaimelorente/reel/CN2VQ1yI_MA/?utm_source=ig_web',
    'instagram',
    'CN2VQ1yI_MA',
    'https://www.instagram.com/reel/CN2VQ1yI_MA/',
  ],
  [
    'https://x.com/SpaceX/status/1848831595014459513',
    'x',
    '1848831595014459513',
    'https://x.com/SpaceX/status/1848831595014459513',
  ],
  ['https://twitter.com/jack/status/20?s=20&t=abc', 'x', '20', 'https://x.com/jack/status/20'],
  ['https://mobile.twitter.com/jack/status/20', 'x', '20', 'https://x.com/jack/status/20'],
  [
    'https://www.x.com/i/status/1902059299591090335',
    'x',
    '1902059299591090335',
    'https://x.com/i/status/1902059299591090335',
  ],
  [
    'https://x.com/i/web/status/1902059299591090335',
    'x',
    '1902059299591090335',
    'https://x.com/i/status/1902059299591090335',
  ],
  [
    'https://x.com/carrionkid/status/1902059299591090335/video/1',
    'x',
    '1902059299591090335',
    'https://x.com/carrionkid/status/1902059299591090335',
  ],
  [
    'https://fxtwitter.com/SpaceX/status/1848831595014459513',
    'x',
    '1848831595014459513',
    'https://x.com/SpaceX/status/1848831595014459513',
  ],
  [
    'https://www.facebook.com/watch/?v=10153231379946729',
    'facebook',
    '10153231379946729',
    'https://www.facebook.com/watch/?v=10153231379946729',
  ],
  [
    'https://www.facebook.com/watch?v=10153231379946729&ref=sharing',
    'facebook',
    '10153231379946729',
    'https://www.facebook.com/watch/?v=10153231379946729',
  ],
  [
    'https://m.facebook.com/NASA/videos/10153231379946729/',
    'facebook',
    '10153231379946729',
    'https://www.facebook.com/watch/?v=10153231379946729',
  ],
  [
    'https://web.facebook.com/NASA/videos/a-slug/10153231379946729',
    'facebook',
    '10153231379946729',
    'https://www.facebook.com/watch/?v=10153231379946729',
  ],
  [
    'https://www.facebook.com/reel/1234567890123456',
    'facebook',
    '1234567890123456',
    'https://www.facebook.com/reel/1234567890123456',
  ],
  [
    'https://www.facebook.com/video.php?v=10153231379946729',
    'facebook',
    '10153231379946729',
    'https://www.facebook.com/watch/?v=10153231379946729',
  ],
  [
    'https://www.facebook.com/watch/live/?v=10153231379946729',
    'facebook',
    '10153231379946729',
    'https://www.facebook.com/watch/?v=10153231379946729',
  ],
  [
    'https://www.facebook.com/NASA/posts/pfbid02abcdefghijkLMNOP',
    'facebook',
    'pfbid02abcdefghijkLMNOP',
    'https://www.facebook.com/NASA/posts/pfbid02abcdefghijkLMNOP',
  ],
  [
    'https://example.com/media/talk.MP4?sig=1',
    'direct',
    'https://example.com/media/talk.MP4?sig=1',
    'https://example.com/media/talk.MP4?sig=1',
  ],
  [
    'https://cdn.example.org/a/b/podcast.mp3',
    'direct',
    'https://cdn.example.org/a/b/podcast.mp3',
    'https://cdn.example.org/a/b/podcast.mp3',
  ],
  [
    'http://files.example.net/x.flac',
    'direct',
    'http://files.example.net/x.flac',
    'http://files.example.net/x.flac',
  ],
];

describe('Platforms.recognise', () => {
  it.each(CASES)('%s → %s %s', async (url, platform, id, canonical) => {
    expect(await recognise(url)).toEqual({ platform, id, url: canonical });
  });

  it('takes URLs pasted without a scheme, and bare video ids of the video-sharing platform', async () => {
    expect(await recognise('youtu.be/GJLlxj_dtq8')).toEqual({
      platform: 'youtube',
      id: 'GJLlxj_dtq8',
      url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8',
    });
    expect((await recognise('  GJLlxj_dtq8 ')).id).toBe('GJLlxj_dtq8');
    expect((await recognise('www.tiktok.com/@a/video/6718335390845095173')).platform).toBe('tiktok');
    expect((await recognise('//x.com/jack/status/20')).id).toBe('20');
  });

  it('recognises every direct media extension, sound or pictures', async () => {
    const kinds: Record<string, 'video' | 'audio'> = {
      mp4: 'video',
      webm: 'video',
      mp3: 'audio',
      m4a: 'audio',
      wav: 'audio',
      ogg: 'audio',
      flac: 'audio',
    };
    for (const [ext, kind] of Object.entries(kinds)) {
      const { ref, location } = await services.platforms.locate(`https://media.example.com/file.${ext}`);
      expect([ref.platform, location.kind, location.upstream]).toEqual(['direct', kind, 'web']);
    }
  });

  it('follows short links hop by hop through the platform upstream, with redirects off', async () => {
    hops.length = 0;
    expect(await recognise('https://vm.tiktok.com/ZMabc123/')).toEqual({
      platform: 'tiktok',
      id: '6718335390845095173',
      url: 'https://www.tiktok.com/@scout2015/video/6718335390845095173',
    });
    expect(hops).toEqual([{ method: 'HEAD', path: '/ZMabc123/', ua: 'facebookexternalhit/1.1' }]);
    hops.length = 0;
    expect((await recognise('https://vt.tiktok.com/ZSxyz789/')).id).toBe('6718335390845095173');
    expect(hops.map((h) => h.path)).toEqual(['/ZSxyz789/', '/ZMabc123/']);
    expect((await recognise('https://www.tiktok.com/t/ZTRmk1/')).id).toBe('7571863205253778710');
    expect(await recognise('https://www.instagram.com/share/reel/BBq9sd1Ebx/')).toEqual({
      platform: 'instagram',
      id: 'CN2VQ1yI_MA',
      url: 'https://www.instagram.com/reel/CN2VQ1yI_MA/',
    });
    expect(await recognise('https://t.co/abcDEF123')).toEqual({
      platform: 'x',
      id: '20',
      url: 'https://x.com/jack/status/20',
    });
    expect((await recognise('https://www.facebook.com/share/v/1AbCdEfGh/')).id).toBe('10153231379946729');
    expect(await recognise('https://www.facebook.com/share/r/15XYZ/')).toEqual({
      platform: 'facebook',
      id: '1234567890123456',
      url: 'https://www.facebook.com/reel/1234567890123456',
    });
  });

  it('says 404 for a short link that leads nowhere and 403 for one that leads to a login', async () => {
    await expect(recognise('https://vm.tiktok.com/nothing1/')).rejects.toMatchObject({ code: 'not_found' });
    await expect(recognise('https://fb.watch/xYz12AbC/')).rejects.toMatchObject({ code: 'forbidden' });
    hops.length = 0;
    // A link to another site names no post: 400, and the other site is never fetched.
    await expect(recognise('https://t.co/offsite1')).rejects.toMatchObject({
      code: 'invalid_request',
      details: 'url',
    });
    expect(hops.map((h) => h.path)).toEqual(['/offsite1']);
  });

  it('answers 400 naming url for shapes no platform supports', async () => {
    const bad = [
      'not a url',
      'ftp://example.com/a.mp4',
      'https://user:pw@example.com/a.mp4',
      'https://vimeo.com/123456',
      'https://example.com/page.html',
      'https://www.youtube.com/@Fireship',
      'https://www.tiktok.com/@scout2015',
      'https://www.tiktok.com/@scout2015/photo/7234567890123456789',
      'https://www.instagram.com/natgeo/',
      'https://x.com/jack',
      'https://x.com/jack/likes',
      'https://www.facebook.com/NASA',
      'https://www.facebook.com/watch?v=notanid',
    ];
    for (const url of bad) {
      const err = await recognise(url).catch((e: unknown) => e);
      expect([url, (err as { code?: string }).code, (err as { details?: string }).details]).toEqual([
        url,
        'invalid_request',
        'url',
      ]);
    }
  });
});

describe('recognition properties', () => {
  const digits = (min: number, max: number) =>
    fc.stringMatching(new RegExp(`^[1-9][0-9]{${min - 1},${max - 1}}$`));
  const query = fc.option(fc.webQueryParameters(), { nil: undefined });

  it('a short-video id survives any host, user and query string', async () => {
    await fc.assert(
      fc.asyncProperty(
        digits(15, 19),
        fc.constantFrom('www.tiktok.com', 'tiktok.com', 'm.tiktok.com'),
        fc.stringMatching(/^[a-z0-9_.]{0,20}$/),
        query,
        async (id, host, user, q) => {
          const ref = await recognise(`https://${host}/@${user}/video/${id}${q ? `?${q}` : ''}`);
          expect(ref.id).toBe(id);
          expect(ref.platform).toBe('tiktok');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a post id survives either hostname, mobile hosts, /i/status/ and query strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        digits(1, 19),
        fc.constantFrom(
          'x.com',
          'twitter.com',
          'www.x.com',
          'mobile.twitter.com',
          'm.twitter.com',
          'mobile.x.com',
        ),
        fc.oneof(fc.stringMatching(/^[A-Za-z0-9_]{1,15}$/), fc.constant('i'), fc.constant('i/web')),
        query,
        async (id, host, user, q) => {
          const ref = await recognise(`https://${host}/${user}/status/${id}${q ? `?${q}` : ''}`);
          expect([ref.platform, ref.id]).toEqual(['x', id]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a photo-sharing shortcode survives every path kind and prefix', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z0-9_-]{11}$/),
        fc.constantFrom('p', 'reel', 'reels', 'tv'),
        fc.option(fc.stringMatching(/^[a-z0-9._]{1,20}$/), { nil: undefined }),
        query,
        async (code, kind, user, q) => {
          const ref = await recognise(
            `https://www.instagram.com${user ? `/${user}` : ''}/${kind}/${code}/${q ? `?${q}` : ''}`,
          );
          expect([ref.platform, ref.id]).toEqual(['instagram', code]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('never claims a URL of another site (only media files, else 400)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.webUrl({ withQueryParameters: true, withFragments: true }), async (url) => {
        const host = new URL(url).hostname;
        fc.pre(
          !/(youtube|youtu\.be|tiktok|instagram|instagr\.am|twitter|x\.com$|t\.co$|facebook|fb\.watch|fb\.com|fxtwitter|vxtwitter|fixupx|fixvx)/i.test(
            host,
          ),
        );
        const result = await recognise(url).catch((e: unknown) => e);
        if ((result as { platform?: string }).platform)
          expect((result as { platform: string }).platform).toBe('direct');
        else expect((result as { code?: string }).code).toBe('invalid_request');
      }),
      { numRuns: 150 },
    );
  });
});
