// Cached answers through the full API under load, each beside bare Fastify answering the same body:
//  - transcript: GET /v1/transcript?url=<watch URL>&lang=en (the captured video);
//  - scrape: GET /v1/web/scrape?url=<page>&render=never, the page a real ~80 KB article
//    (readability/dropbox-blog, BENCH_SCRAPE_FIXTURE) served by bench/lib/site.ts;
//  - video metadata: GET /v1/vidsite/video?id=<video>.
// One Unfurl app (bench/lib/transcript-server.ts `unfurl`: the real app, one account with plenty of
// credits, rate limits raised out of the way) against the loopback replay of the platform; each
// answer is asked once first (the miss fills the cache), and from then on every request is a hit:
// auth, the rate limiter, the cache read, the charge (one ledger transaction), the answer. Each bare
// side is a plain Fastify app in its own child answering that first answer's body. The replay
// counts what it serves: a hit makes no upstream call (printed beside each result).
// Issue 19's goal: each cached side ≥ 50 % of its bare Fastify side. Beside the rate, each server's
// CPU time per request (its process, read over IPC around the measured window): on a machine shared
// with other work the rates swing with what else runs, the CPU a request costs far less, so the
// ratio of requests per CPU second is printed and judged too.
// Env: BENCH_CONNECTIONS, BENCH_DURATION, BENCH_WARMUP (bench/lib/http.ts), BENCH_ROUNDS (each side
// measured this many times, interleaved, best kept), BENCH_CPU_PROF (servers write V8 CPU profiles),
// BENCH_CACHED=transcript,scrape (only those answers: a profile of one path), BENCH_DATABASE_URL (the app
// on a scratch PostgreSQL database of that server instead of SQLite; with BENCH_REDIS_URL, Redis too).
import path from 'node:path';
import { randomBase62 } from '../src/ids.js';
import {
  type ChildServer,
  describeLoad,
  formatLoad,
  intEnv,
  loadSettings,
  startChild as startSite,
} from './lib/http.js';
import { scratchDatabase } from './lib/pg.js';
import {
  appEnvFor,
  type Child,
  describeUpstream,
  measure,
  type Side,
  startChild,
  watchUrl,
} from './transcript.js';

const TARGET = 0.5;
const VIDEO = 'GJLlxj_dtq8';
const FIXTURE = process.env.BENCH_SCRAPE_FIXTURE ?? 'dropbox-blog';

/** One GET of the app that must answer 200 (a broken setup would measure error pages); its body. */
async function firstAnswer(app: Child, pathAndQuery: string): Promise<string> {
  const res = await fetch(`${app.address}${pathAndQuery}`, {
    headers: { authorization: `Bearer ${app.apiKey}` },
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${pathAndQuery}: ${res.status} ${body.slice(0, 300)}`);
  return body;
}

export async function benchCached(): Promise<void> {
  const settings = loadSettings();
  const rounds = intEnv('BENCH_ROUNDS', 1);
  console.log(
    `\n## cached — cached transcript, scrape and video metadata on the full API vs bare Fastify answering the ` +
      `same body; ${describeLoad(settings)}; servers in child processes` +
      `${rounds > 1 ? `; best of ${rounds} interleaved rounds` : ''}`,
  );
  const children: Child[] = [];
  let site: ChildServer | null = null;
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL;
  const scratch = pgUrl ? await scratchDatabase(pgUrl) : null;
  if (scratch) console.log(`the app on PostgreSQL${redisUrl ? ' and Redis' : ''}`);
  try {
    const replay = await startChild(['replay', '1']);
    children.push(replay);
    const file = path.resolve(
      import.meta.dirname,
      '../../shared/fixtures/web/readability',
      FIXTURE,
      'source.html',
    );
    site = await startSite(new URL('./lib/site.ts', import.meta.url), ['file', file]);
    // No shedding: a shared machine stalls the loop now and then, and a shed hit would stop the run
    // (the overload bench measures shedding).
    const app = await startChild(['unfurl'], {
      ...appEnvFor(replay.address),
      UNFURL_SHED_EVENT_LOOP_DELAY_MS: '0',
      ...(scratch && { DATABASE_URL: scratch.url }),
      ...(scratch && redisUrl && { REDIS_URL: redisUrl, UNFURL_QUEUE_PREFIX: `bench-${randomBase62(8)}` }),
    });
    children.push(app);
    const paths = {
      transcript: `/v1/transcript?url=${watchUrl(VIDEO)}&lang=en`,
      scrape: `/v1/web/scrape?url=${encodeURIComponent(`${site.address}/page.html`)}&render=never`,
      'video metadata': `/v1/vidsite/video?id=${VIDEO}`,
    };
    const auth = { authorization: `Bearer ${app.apiKey}` };
    const only = process.env.BENCH_CACHED?.split(',').map((s) => s.trim());
    const pairs: Array<{ name: string; bare: Side; cached: Side }> = [];
    for (const [name, pathAndQuery] of Object.entries(paths)) {
      if (only && !only.some((o) => name.startsWith(o))) continue;
      const body = await firstAnswer(app, pathAndQuery);
      const bare = await startChild(['bare'], { BENCH_BARE_BODY: body });
      children.push(bare);
      pairs.push({
        name,
        bare: {
          label: `bare Fastify, the ${name} static (${(body.length / 1024).toFixed(1)} KB)`,
          options: { url: `${bare.address}/v1/transcript` },
          best: null,
          server: bare,
        },
        cached: {
          label: `Unfurl cached ${name}`,
          options: { url: `${app.address}${pathAndQuery}`, headers: auth },
          best: null,
          server: app,
        },
      });
    }
    for (let round = 0; round < rounds; round++) {
      for (const pair of pairs) {
        for (const side of [pair.bare, pair.cached]) {
          const m = await measure(side, settings, replay);
          if (!side.best || m.rps > side.best.rps) side.best = m;
        }
      }
    }
    const w = 48;
    const cpu = (side: Side) => `${side.best!.cpuUsPerRequest!.toFixed(0).padStart(5)} µs CPU/req`;
    const verdict = (ratio: number) => `target ≥ ${TARGET * 100} %, ${ratio >= TARGET ? 'met' : 'MISSED'}`;
    for (const { bare, cached } of pairs) {
      const ratio = cached.best!.rps / bare.best!.rps;
      const cpuRatio = bare.best!.cpuUsPerRequest! / cached.best!.cpuUsPerRequest!;
      console.log(`${bare.label.padEnd(w)}${formatLoad(bare.best!)}  ${cpu(bare)}   (baseline)`);
      console.log(
        `${cached.label.padEnd(w)}${formatLoad(cached.best!)}  ${cpu(cached)}   ` +
          `= ${(ratio * 100).toFixed(1)} % of bare Fastify's rate (${verdict(ratio)}), ` +
          `${(cpuRatio * 100).toFixed(1)} % of its requests per CPU second (${verdict(cpuRatio)}); ` +
          `upstream calls per request: ${describeUpstream(cached.best!)}`,
      );
    }
  } finally {
    await Promise.all([
      ...children.map((child) =>
        child.stop().catch((err) => console.error('stopping a server failed:', err)),
      ),
      site?.stop(),
    ]);
    await scratch?.drop();
  }
}
