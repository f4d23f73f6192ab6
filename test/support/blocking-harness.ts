// A platform that fights back, for the blocking test and `npm run bench -- blocks`: the replay of the
// video-sharing platform's real answers behind a gate that blocks by source address, as the real
// platform does, and N loopback CONNECT proxies that each connect out from an address of their own
// (127.0.0.2, 127.0.0.3, …). Some exits are burned (every answer a block); the others are blocked at
// a given rate, with the platform's kinds of block: the bot check in a player answer, a 429 with
// Retry-After, an empty caption body, a redirect to the "sorry" page and the captcha page. Then a
// load of transcript and video-metadata requests against an app pointed at the gate, and what a
// user would judge it by: answered right, empty answers, billed failures, p50/p95, upstream calls per
// request, and the share of calls that still reached burned exits in the second half of the run.
import http from 'node:http';
import { type Loopback, startConnectProxy, startServer } from './loopback.js';
import { CAPTURES, startYouTubeReplay, type YouTubeReplay, youtubeFixture } from './youtube-replay.js';

export type BlockKind = 'botCheck' | 'tooMany' | 'emptyCaptions' | 'sorry' | 'captcha';

export interface BlockingOptions {
  /** Exits (loopback proxies); 0: the app goes direct, from 127.0.0.1. */
  proxies: number;
  /** How many of the exits are burned (the first ones). */
  burned: number;
  /** Share of the other exits' answers that are blocks (0–1). */
  blockRate: number;
  /** Seconds a 429 asks to wait. */
  retryAfterSeconds?: number;
  /** Seed of the block draws, so a run can be repeated. */
  seed?: number;
}

export interface GateCall {
  at: number;
  source: string;
  path: string;
  block: BlockKind | null;
}

export interface BlockingPlatform {
  /** Where the app's UNFURL_UPSTREAM_YOUTUBE points. */
  url: string;
  /** UNFURL_PROXY_URLS for the app ('' without proxies). */
  proxyUrls: string;
  /** The source addresses of the burned exits. */
  burnedSources: ReadonlySet<string>;
  calls: GateCall[];
  replay: YouTubeReplay;
  close(): Promise<void>;
}

/** A small seeded generator (mulberry32): the same seed draws the same blocks. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The kinds of block the platform answers a path with. */
function kindsFor(path: string): BlockKind[] {
  if (path.startsWith('/youtubei/v1/player')) return ['botCheck', 'tooMany', 'sorry', 'captcha'];
  if (path.startsWith('/api/timedtext')) return ['emptyCaptions', 'tooMany', 'sorry', 'captcha'];
  return ['tooMany', 'sorry', 'captcha'];
}

function answerBlock(res: http.ServerResponse, kind: BlockKind, retryAfterSeconds: number) {
  switch (kind) {
    case 'botCheck':
      res.writeHead(200, { 'content-type': 'application/json' }).end(youtubeFixture(CAPTURES.playerBotCheck));
      return;
    case 'tooMany':
      res
        .writeHead(429, { 'content-type': 'text/html', 'retry-after': String(retryAfterSeconds) })
        .end('<html><body>Too Many Requests</body></html>');
      return;
    case 'emptyCaptions':
      res.writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' }).end('');
      return;
    case 'sorry':
      res
        .writeHead(302, { location: 'https://www.google.com/sorry/index?continue=https://www.youtube.com/' })
        .end();
      return;
    case 'captcha':
      res.writeHead(200, { 'content-type': 'text/html' }).end(youtubeFixture(CAPTURES.recaptchaPage));
      return;
  }
}

/** Passes a request on to the replay and its answer back. */
function forward(req: http.IncomingMessage, res: http.ServerResponse, replay: Loopback) {
  const out = http.request(
    { host: '127.0.0.1', port: replay.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => res.destroy());
  req.pipe(out);
}

const sourceOf = (req: http.IncomingMessage) => (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');

export async function startBlockingPlatform(options: BlockingOptions): Promise<BlockingPlatform> {
  const random = seededRandom(options.seed ?? 1);
  const retryAfter = options.retryAfterSeconds ?? 1;
  const replay = await startYouTubeReplay();
  const sources = Array.from({ length: options.proxies }, (_, i) => `127.0.0.${i + 2}`);
  const burnedSources = new Set(sources.slice(0, options.burned));
  const calls: GateCall[] = [];
  const gate = await startServer((req, res) => {
    const source = sourceOf(req);
    const path = req.url ?? '/';
    const kinds = kindsFor(path);
    const blocked = burnedSources.has(source) || random() < options.blockRate;
    const block = blocked ? kinds[Math.floor(random() * kinds.length)]! : null;
    calls.push({ at: performance.now(), source, path, block });
    if (block) {
      req.resume();
      answerBlock(res, block, retryAfter);
    } else {
      forward(req, res, replay);
    }
  });
  const exits = await Promise.all(
    sources.map((localAddress) => startConnectProxy(undefined, { localAddress })),
  );
  return {
    url: gate.url,
    proxyUrls: exits.map((e) => e.url).join(','),
    burnedSources,
    calls,
    replay,
    async close() {
      for (const e of exits) await e.close();
      await gate.close();
      await replay.close();
    },
  };
}

/** The app settings that point it at the blocking platform, with its caches off. */
export function blockingEnv(platform: BlockingPlatform): Record<string, string> {
  return {
    UNFURL_UPSTREAM_YOUTUBE: platform.url,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_CACHE_TTL_SECONDS: '0',
    ...(platform.proxyUrls && { UNFURL_PROXY_URLS: platform.proxyUrls }),
  };
}

/** Videos the replay answers a transcript for (player, captions), and a video's metadata for. */
export const TRANSCRIPT_VIDEOS = ['GJLlxj_dtq8', '2lAe1cqCOXo'];
export const METADATA_VIDEOS = ['GJLlxj_dtq8', '2lAe1cqCOXo', 'WXxV9g7lsFE', '5YceQ8YqYMc'];

/** `count` requests alternating a transcript and a video's metadata over those videos. */
export function loadPaths(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const n = Math.floor(i / 2);
    return i % 2 === 0
      ? `/v1/transcript?url=https://youtu.be/${TRANSCRIPT_VIDEOS[n % TRANSCRIPT_VIDEOS.length]}`
      : `/v1/vidsite/video?id=${METADATA_VIDEOS[n % METADATA_VIDEOS.length]}`;
  });
}

export interface LoadAnswer {
  path: string;
  status: number;
  body: string;
  charged: number;
  ms: number;
  retryAfter: string | null;
}

/** Sends `paths` to the app at `base`, `concurrency` at a time; answers in the order of `paths`. */
export async function runLoad(
  base: string,
  apiKey: string,
  paths: readonly string[],
  concurrency: number,
): Promise<LoadAnswer[]> {
  const answers: LoadAnswer[] = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      const started = performance.now();
      const res = await fetch(`${base}${paths[i]}`, { headers: { authorization: `Bearer ${apiKey}` } });
      const body = await res.text();
      answers[i] = {
        path: paths[i]!,
        status: res.status,
        body,
        charged: Number(res.headers.get('x-credits-charged') ?? 0),
        ms: performance.now() - started,
        retryAfter: res.headers.get('retry-after'),
      };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}

export interface LoadReport {
  requests: number;
  right: number;
  rightShare: number;
  emptyAnswers: number;
  billedFailures: number;
  /** Failures that were a fast 502/503 with Retry-After (or a 502), unbilled. */
  cleanFailures: number;
  p50Ms: number;
  p95Ms: number;
  upstreamCallsPerRequest: number;
  /**
   * Of those, the calls the platform answered rather than blocked. Above the baseline's when fewer
   * identical requests overlapped (concurrent ones share one upstream call): timing, not retries.
   */
  servedCallsPerRequest: number;
  /** Of the calls made in the second half of the run, the share that reached burned exits. */
  burnedShareSecondHalf: number;
  /** The failures by status, error code and message (numbers taken out), with their counts. */
  failureKinds: Record<string, number>;
}

/** A failure's kind: its status, code and message with the numbers taken out, so that alike ones group. */
function failureKind(a: LoadAnswer): string {
  try {
    const body = JSON.parse(a.body) as { error?: string; message?: string };
    return `${a.status} ${body.error}: ${String(body.message).replace(/\d+/g, 'N')}`;
  } catch {
    return `${a.status} (not JSON)`;
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** An answer's body without what differs between two right answers (none today: bodies compare as-is). */
const isEmptyAnswer = (a: LoadAnswer) => {
  if (a.status !== 200) return false;
  try {
    const body = JSON.parse(a.body) as { content?: unknown };
    return Array.isArray(body.content) ? body.content.length === 0 : body.content === '';
  } catch {
    return true;
  }
};

/**
 * Judges `answers` against `expected` (path → the body a run without blocks answered), with the
 * gate's calls made from `callsFrom` on.
 */
export function report(
  answers: readonly LoadAnswer[],
  expected: ReadonlyMap<string, string>,
  platform: BlockingPlatform,
  callsFrom = 0,
): LoadReport {
  const right = answers.filter((a) => a.status === 200 && a.body === expected.get(a.path)).length;
  const failures = answers.filter((a) => a.status !== 200);
  const calls = platform.calls.slice(callsFrom);
  const half = calls.length > 0 ? (calls[0]!.at + calls[calls.length - 1]!.at) / 2 : 0;
  const late = calls.filter((c) => c.at >= half);
  const lateBurned = late.filter((c) => platform.burnedSources.has(c.source)).length;
  return {
    requests: answers.length,
    right,
    rightShare: right / answers.length,
    emptyAnswers: answers.filter(isEmptyAnswer).length,
    billedFailures: failures.filter((a) => a.charged > 0).length,
    cleanFailures: failures.filter((a) => a.status === 502 || (a.status === 503 && a.retryAfter !== null))
      .length,
    p50Ms: percentile(
      answers.map((a) => a.ms),
      50,
    ),
    p95Ms: percentile(
      answers.map((a) => a.ms),
      95,
    ),
    upstreamCallsPerRequest: calls.length / answers.length,
    servedCallsPerRequest: calls.filter((c) => c.block === null).length / answers.length,
    burnedShareSecondHalf: late.length > 0 ? lateBurned / late.length : 0,
    failureKinds: failures.reduce<Record<string, number>>((kinds, a) => {
      const kind = failureKind(a);
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      return kinds;
    }, {}),
  };
}
