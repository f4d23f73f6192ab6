// Soak: the full app under ten minutes of mixed load, watched for leaks. Three child processes — a
// synthetic site (bench/lib/site.ts, 2,000 pages), the platform replay (bench/lib/transcript-server.ts)
// and the app (bench/lib/soak-server.ts: embedded, or PostgreSQL/Redis when DATABASE_URL/REDIS_URL
// are set here) — and closed loops in this process, each sending its next request when the last one
// answered:
//   scrape cached    GET /v1/web/scrape of one page (a cache hit after the first)
//   scrape uncached  GET /v1/web/scrape of a URL never asked before (a fetch and a parse each)
//   transcript warm  GET /v1/transcript of one video (cached)
//   transcript cold  GET /v1/transcript of made-up ids in turn (player + timedtext upstream each)
//   crawl            POST /v1/web/crawl of 50 pages, polled to its end, then the next
// Caches are given a 60 s lifetime; their expired entries are dropped only when the cache is full (the
// LRU's entry cap bounds it), so the heap climbs until the caches reach that cap — on a 2-core machine
// about 5 minutes of this load — and must then stay flat. Every BENCH_SOAK_SAMPLE_SECONDS the app
// reports its memory after a full collection and its active handles; the first sample after the
// warm-up (a third of the run, at least 60 s) is the reference.
// Printed: each sample, then the reference, middle and end side by side, requests and answers by
// kind, and a verdict: flat when heap and RSS grew by less than 10 % (or 8 MB) from the reference to
// the end and from the middle to the end, and active handles are no more than at the reference + 10.
// Env: BENCH_SOAK_SECONDS (600), BENCH_SOAK_SAMPLE_SECONDS (15), BENCH_SOAK_CONNECTIONS (2 per
// loop kind), DATABASE_URL / REDIS_URL (the distributed app).
import { Agent, request } from 'undici';
import { intEnv, startChild } from './lib/http.js';
import type { SoakStats } from './lib/soak-server.js';
import { benchId } from './lib/transcript-server.js';
import { appEnvFor, watchUrl } from './transcript.js';

const SITE_PAGES = 2000;
const VIDEO_IDS = 5000;
const WARM_VIDEO = 'GJLlxj_dtq8';

interface Sample {
  atS: number;
  stats: SoakStats;
}

interface Tally {
  sent: number;
  byStatus: Map<number, number>;
  errors: number;
}

const handleCount = (s: SoakStats) => Object.values(s.handles).reduce((a, b) => a + b, 0);
const describeHandles = (s: SoakStats) =>
  Object.entries(s.handles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');

function grewTooMuch(from: number, to: number): boolean {
  return to - from > Math.max(8, from * 0.1);
}

export async function benchSoak(): Promise<void> {
  const seconds = intEnv('BENCH_SOAK_SECONDS', 600);
  const sampleS = intEnv('BENCH_SOAK_SAMPLE_SECONDS', 15);
  const connections = intEnv('BENCH_SOAK_CONNECTIONS', 2);
  const warmupS = Math.max(60, Math.round(seconds / 3));
  const passThrough: Record<string, string> = {};
  // MALLOC_ARENA_MAX: glibc's arenas, to tell native growth from fragmentation.
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'MALLOC_ARENA_MAX']) {
    const value = process.env[name];
    if (value) passThrough[name] = value;
  }

  const site = await startChild(new URL('./lib/site.ts', import.meta.url), ['site', String(SITE_PAGES)]);
  const replay = await startChild(new URL('./lib/transcript-server.ts', import.meta.url), [
    'replay',
    String(VIDEO_IDS),
  ]);
  const app = await startChild(new URL('./lib/soak-server.ts', import.meta.url), [], {
    ...appEnvFor(replay.address),
    UNFURL_SCRAPE_CACHE_TTL_SECONDS: '60',
    UNFURL_UPSTREAM_CACHE_TTL_SECONDS: '60',
    ...passThrough,
  });
  // A request unanswered in 60 s counts as a failure instead of holding its loop (and the end) up.
  const agent = new Agent({
    connections: 64,
    keepAliveTimeout: 10_000,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  const headers = { authorization: `Bearer ${app.hello.apiKey as string}` };
  console.log(
    `\n== soak: ${seconds} s of mixed load (${connections} connection(s) per kind, one crawl at a time), ` +
      `${process.env.DATABASE_URL ? 'distributed' : 'embedded'} app; samples every ${sampleS} s, warm-up ${warmupS} s`,
  );

  const tallies = new Map<string, Tally>();
  const record = (kind: string, status: number | null) => {
    const t = tallies.get(kind) ?? { sent: 0, byStatus: new Map<number, number>(), errors: 0 };
    tallies.set(kind, t);
    t.sent++;
    if (status === null) t.errors++;
    else t.byStatus.set(status, (t.byStatus.get(status) ?? 0) + 1);
  };
  const get = async (kind: string, path: string) => {
    try {
      const res = await request(`${app.address}${path}`, { headers, dispatcher: agent });
      const body = await res.body.text();
      record(kind, res.statusCode);
      await honourRetryAfter(res.statusCode, res.headers['retry-after']);
      return { status: res.statusCode, body };
    } catch {
      record(kind, null);
      return { status: 0, body: '' };
    }
  };

  // A well-behaved client: a refusal (shed or over a limit) waits what Retry-After says.
  const honourRetryAfter = async (status: number, retryAfter: unknown) => {
    if (status !== 429 && status !== 503) return;
    const waitS = Math.min(5, Number(retryAfter) || 1);
    await new Promise((r) => setTimeout(r, waitS * 1000));
  };

  let n = 0;
  const scrapeUrl = (page: string) => `/v1/web/scrape?url=${encodeURIComponent(`${site.address}${page}`)}`;
  const transcriptUrl = (id: string) => `/v1/transcript?url=${watchUrl(id)}&lang=en`;
  const kinds: Record<string, () => Promise<unknown>> = {
    'scrape cached': () => get('scrape cached', scrapeUrl('/p/1')),
    'scrape uncached': () => {
      const i = ++n;
      return get('scrape uncached', scrapeUrl(`/p/${1 + (i % (SITE_PAGES - 1))}?v=${i}`));
    },
    'transcript warm': () => get('transcript warm', transcriptUrl(WARM_VIDEO)),
    'transcript cold': () => get('transcript cold', transcriptUrl(benchId(++n % VIDEO_IDS))),
  };
  const crawlOnce = async () => {
    try {
      const res = await request(`${app.address}/v1/web/crawl`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${site.address}/`, limit: 50 }),
        dispatcher: agent,
      });
      const answer = (await res.body.json()) as { jobId?: string };
      record('crawl start', res.statusCode);
      await honourRetryAfter(res.statusCode, res.headers['retry-after']);
      if (!answer.jobId) return;
      while (running) {
        await new Promise((r) => setTimeout(r, 250));
        const poll = await get('crawl poll', `/v1/web/crawl/${answer.jobId}`);
        if (poll.status !== 200) continue;
        const { status } = JSON.parse(poll.body) as { status: string };
        if (status !== 'scraping') {
          record(`crawl ${status}`, 200);
          return;
        }
      }
    } catch {
      record('crawl start', null);
    }
  };

  const samples: Sample[] = [];
  const started = performance.now();
  const elapsedS = () => (performance.now() - started) / 1000;
  let running = true;
  const loops: Promise<void>[] = [];
  for (const send of Object.values(kinds)) {
    for (let c = 0; c < connections; c++) {
      loops.push(
        (async () => {
          while (running) await send();
        })(),
      );
    }
  }
  loops.push(
    (async () => {
      while (running) await crawlOnce();
    })(),
  );

  const sampleNow = async () => {
    const { stats } = await app.ask<{ stats: SoakStats }>('stats');
    const sample = { atS: Math.round(elapsedS()), stats };
    samples.push(sample);
    const sent = [...tallies.values()].reduce((a, t) => a + t.sent, 0);
    console.log(
      `  ${String(sample.atS).padStart(4)} s  RSS ${stats.rssMb.toFixed(1).padStart(6)} MB  heap ${stats.heapUsedMb
        .toFixed(1)
        .padStart(6)} MB  external ${stats.externalMb.toFixed(1).padStart(5)} MB  handles ${String(
        handleCount(stats),
      ).padStart(3)}  requests so far ${sent}`,
    );
  };
  await sampleNow();
  while (elapsedS() < seconds) {
    await new Promise((r) => setTimeout(r, Math.min(sampleS, seconds - elapsedS()) * 1000));
    await sampleNow();
  }
  running = false;
  await Promise.all(loops);
  await agent.close();
  await app.stop();
  await replay.stop();
  await site.stop();

  const afterWarmup = samples.filter((s) => s.atS >= warmupS);
  const reference = afterWarmup[0] ?? samples[0]!;
  const end = samples[samples.length - 1]!;
  const middle = afterWarmup[Math.floor(afterWarmup.length / 2)] ?? end;
  console.log('\n  point        at s    RSS MB   heap MB   handles');
  for (const [label, s] of [
    ['reference', reference],
    ['middle', middle],
    ['end', end],
  ] as const) {
    console.log(
      `  ${label.padEnd(10)} ${String(s.atS).padStart(6)} ${s.stats.rssMb.toFixed(1).padStart(9)} ${s.stats.heapUsedMb
        .toFixed(1)
        .padStart(9)} ${String(handleCount(s.stats)).padStart(9)}   (${describeHandles(s.stats)})`,
    );
  }
  console.log('\n  kind              sent   answers');
  for (const [kind, t] of [...tallies.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const answers = [...t.byStatus.entries()].map(([status, count]) => `${status}×${count}`).join(' ');
    console.log(
      `  ${kind.padEnd(16)} ${String(t.sent).padStart(6)}   ${answers}${t.errors ? ` errors×${t.errors}` : ''}`,
    );
  }
  const problems: string[] = [];
  for (const [what, pick] of [
    ['heap', (s: Sample) => s.stats.heapUsedMb],
    ['RSS', (s: Sample) => s.stats.rssMb],
  ] as const) {
    if (grewTooMuch(pick(reference), pick(end))) problems.push(`${what} grew from the reference to the end`);
    if (grewTooMuch(pick(middle), pick(end))) problems.push(`${what} grew from the middle to the end`);
  }
  if (handleCount(end.stats) > handleCount(reference.stats) + 10) problems.push('active handles grew');
  let failures = 0;
  for (const t of tallies.values()) {
    failures += t.errors;
    for (const [status, count] of t.byStatus) if (status >= 500 && status !== 503) failures += count;
  }
  if (failures > 0) problems.push(`${failures} requests failed (5xx other than shedding, or no answer)`);
  console.log(
    `\n  verdict: ${problems.length === 0 ? 'flat — memory and handles steady after the warm-up' : problems.join('; ')}`,
  );
}
