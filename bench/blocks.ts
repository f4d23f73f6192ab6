// A platform that fights back (test/support/blocking-harness.ts): the replay of the video-sharing
// platform behind a gate that blocks by source address, N loopback proxies leaving from addresses of
// their own, some burned, the rest blocked at a rate; caches off; BENCH_BLOCK_REQUESTS (300) transcript
// and video-metadata requests, BENCH_BLOCK_CONCURRENCY (4) at a time, against the full app in this
// process. The baseline, measured in the same run: the same requests on the same exits without any
// block — its upstream calls per request are what the blocked runs' calls are compared with.
// Printed per scenario: answered right (the body the baseline answered), empty answers, billed
// failures, clean failures (502, or 503 with Retry-After), p50/p95, upstream calls per request and its
// ratio to the baseline, and the share of upstream calls that still reached burned exits in the second
// half of the run. Goals (issue 34): 1 burned of 4 + 20 % blocks → ≥ 99 % right, burned ≤ 5 %,
// p95 ≤ 1.5 s, calls ≤ 1.3× the baseline; 2 of 4 + 30 % → ≥ 97 %; no proxies + 20 % → ≥ 98 %.

import {
  type BlockingOptions,
  blockingEnv,
  type LoadAnswer,
  type LoadReport,
  loadPaths,
  report,
  runLoad,
  startBlockingPlatform,
} from '../test/support/blocking-harness.js';
import { intEnv } from './lib/http.js';
import { startUnfurlApp } from './lib/unfurl-app.js';

interface Scenario {
  name: string;
  options: BlockingOptions;
}

const SCENARIOS: Scenario[] = [
  { name: '1 burned of 4, 20 % blocks', options: { proxies: 4, burned: 1, blockRate: 0.2 } },
  { name: '2 burned of 4, 30 % blocks', options: { proxies: 4, burned: 2, blockRate: 0.3 } },
  { name: 'no proxies, 20 % blocks', options: { proxies: 0, burned: 0, blockRate: 0.2 } },
];

/** One run: a fresh platform and app, the load, the report (and the answers, for the baseline). */
async function runScenario(
  name: string,
  options: BlockingOptions,
  paths: string[],
  concurrency: number,
  expected: ReadonlyMap<string, string> | null,
): Promise<{ report: LoadReport; answers: LoadAnswer[] }> {
  const platform = await startBlockingPlatform({ seed: 7, ...options });
  const saved = { ...process.env };
  Object.assign(process.env, blockingEnv(platform), {
    UNFURL_RATE_LIMIT_RPS: '100000',
    UNFURL_RATE_LIMIT_BURST: '100000',
    LOG_LEVEL: 'silent',
  });
  const app = await startUnfurlApp({ name: `blocks-${name.replace(/\W+/g, '-')}`, credits: 1_000_000 });
  try {
    const answers = await runLoad(app.address, app.apiKey, paths, concurrency);
    const known = expected ?? new Map(answers.filter((a) => a.status === 200).map((a) => [a.path, a.body]));
    return { report: report(answers, known, platform), answers };
  } finally {
    await app.close();
    await platform.close();
    process.env = saved;
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

export async function benchBlocks(): Promise<void> {
  const requests = intEnv('BENCH_BLOCK_REQUESTS', 300);
  const concurrency = intEnv('BENCH_BLOCK_CONCURRENCY', 4);
  const paths = loadPaths(requests);
  console.log(
    `blocks: ${requests} requests (transcript and video metadata), ${concurrency} at a time, caches off`,
  );

  const baseline = await runScenario(
    'baseline',
    { proxies: 4, burned: 0, blockRate: 0 },
    paths,
    concurrency,
    null,
  );
  const expected = new Map(baseline.answers.filter((a) => a.status === 200).map((a) => [a.path, a.body]));
  const rows: Array<[string, LoadReport]> = [['no blocks (baseline), 4 proxies', baseline.report]];
  for (const s of SCENARIOS) {
    rows.push([s.name, (await runScenario(s.name, s.options, paths, concurrency, expected)).report]);
  }

  const base = baseline.report.upstreamCallsPerRequest;
  console.log(
    [
      '| scenario | right | empty | billed failures | clean failures | p50 ms | p95 ms | upstream calls/request | ÷ baseline | of them served | burned share, 2nd half |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        ([name, r]) =>
          `| ${name} | ${r.right}/${r.requests} (${pct(r.rightShare)}) | ${r.emptyAnswers} | ${r.billedFailures} | ` +
          `${r.cleanFailures} | ${r.p50Ms.toFixed(0)} | ${r.p95Ms.toFixed(0)} | ` +
          `${r.upstreamCallsPerRequest.toFixed(2)} | ${(r.upstreamCallsPerRequest / base).toFixed(2)}× | ` +
          `${r.servedCallsPerRequest.toFixed(2)} | ` +
          `${pct(r.burnedShareSecondHalf)} |`,
      ),
    ].join('\n'),
  );
  for (const [name, r] of rows) {
    for (const [kind, n] of Object.entries(r.failureKinds)) console.log(`  ${name}: ${n} × ${kind}`);
  }
}
