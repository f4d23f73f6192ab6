// The browser pool's fair share under a flood: one account asks for BENCH_FLOOD_RENDERS (default 100)
// rendered scrapes with 5 actions each (wait, click, write, scroll, scrape) all at once, while a second
// account renders plain pages one after another. The second account's render time during the flood
// is compared with its time alone, measured in the same run: a freed slot goes to the account with
// fewer renders running, so it should wait about one render at most, however deep the flood's queue.
// Loopback pages (bench/lib/site.ts in a child process); the pool as the server builds it, with
// BENCH_RENDERS slots (default 4) and each account's share limited to all but one of them.
import { loadConfig } from '../src/config.js';
import { SafeFetcher } from '../src/net/safe-fetch.js';
import type { PageAction } from '../src/sources/web/actions.js';
import { BrowserPool } from '../src/sources/web/browser-pool.js';
import { intEnv, startChild } from './lib/http.js';

const FLOOD = intEnv('BENCH_FLOOD_RENDERS', 100);
const SLOTS = intEnv('BENCH_RENDERS', 4);
const OTHER = 10;

const ACTIONS: PageAction[] = [
  { type: 'wait', milliseconds: 50 },
  { type: 'click', selector: 'input[name="q"]' },
  { type: 'write', text: 'market report' },
  { type: 'scroll', direction: 'down' },
  { type: 'scrape' },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const max = (xs: number[]) => Math.max(...xs);

export async function benchRenderFairness(): Promise<void> {
  const chromiumPath = loadConfig({}).browser.chromiumPath;
  const server = await startChild(new URL('./lib/site.ts', import.meta.url), ['site', String(FLOOD + 50)]);
  const fetcher = new SafeFetcher({ allowPrivateNetwork: true, timeoutMs: 10_000 });
  const pool = new BrowserPool({
    chromiumPath,
    size: SLOTS,
    accountMax: Math.max(1, SLOTS - 1),
    fetcher,
    queueTimeoutMs: 600_000,
  });
  const page = (i: number) => `${server.address}/p/${i}`;
  /** The other account's renders, one after another: ms each. */
  const others = async (from: number): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < OTHER; i++) {
      const t0 = performance.now();
      await pool.render(page(from + i), { account: 'other' });
      times.push(performance.now() - t0);
    }
    return times;
  };
  try {
    console.log(
      `render fairness: ${FLOOD} renders with ${ACTIONS.length} actions from one account, ${SLOTS} slots`,
    );
    await pool.render(page(0), { account: 'other' }); // launch, warm-up
    const alone = await others(1);
    const t0 = performance.now();
    let floodDone = 0;
    const flood = Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        pool.render(page(20 + i), { account: 'flood', actions: ACTIONS }).then(() => floodDone++),
      ),
    );
    await new Promise((r) => setTimeout(r, 1000)); // the flood's queue is deep by now
    const during = await others(1 + OTHER);
    const doneWhenOtherFinished = floodDone;
    await flood;
    const floodSeconds = (performance.now() - t0) / 1000;
    console.log(
      `other account alone:       median ${median(alone).toFixed(0)} ms, max ${max(alone).toFixed(0)} ms`,
    );
    console.log(
      `other account during flood: median ${median(during).toFixed(0)} ms, max ${max(during).toFixed(0)} ms (flood had ${doneWhenOtherFinished} of ${FLOOD} done when it finished)`,
    );
    console.log(
      `flood: ${FLOOD} renders with actions in ${floodSeconds.toFixed(1)} s (${(FLOOD / floodSeconds).toFixed(1)}/s)`,
    );
    console.log(`ratio during ÷ alone (median): ${(median(during) / median(alone)).toFixed(2)}`);
  } finally {
    await pool.close();
    await fetcher.close();
    await server.stop();
  }
}
