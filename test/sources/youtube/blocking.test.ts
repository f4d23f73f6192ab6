// A platform that fights back (test/support/blocking-harness.ts): the replay behind a gate blocking by
// source address, four loopback exits leaving from addresses of their own, some burned, the rest
// blocked at a rate with every kind of block the platform uses; caches off. The same judgement as
// `npm run bench -- blocks`, on fewer requests and with the bars a little lower than the bench's goals
// (fewer requests, a busy test machine): answers stay right, none is empty, no failure is billed, and
// burned exits stop getting traffic.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import {
  type BlockingOptions,
  type BlockingPlatform,
  blockingEnv,
  type LoadReport,
  loadPaths,
  report,
  runLoad,
  startBlockingPlatform,
} from '../../support/blocking-harness.js';

const REQUESTS = 80;
const CONCURRENCY = 4;
const paths = loadPaths(REQUESTS);

let open: Array<{ t: TestApp; platform: BlockingPlatform }> = [];
afterEach(async () => {
  for (const { t, platform } of open) {
    await t.close();
    await platform.close();
  }
  open = [];
});

/** The load on a fresh platform and app; `expected` is what a run without blocks answered. */
async function run(options: BlockingOptions, expected?: ReadonlyMap<string, string>) {
  const platform = await startBlockingPlatform({ seed: 11, ...options });
  const t = await createTestApp(blockingEnv(platform));
  open.push({ t, platform });
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { apiKey, accountId } = await t.register();
  await t.services.ledger.grant(accountId, 10_000, 'blocking test');
  const answers = await runLoad(base, apiKey, paths, CONCURRENCY);
  const known = expected ?? new Map(answers.filter((a) => a.status === 200).map((a) => [a.path, a.body]));
  return { report: report(answers, known, platform), answers };
}

let expected: Map<string, string> | undefined;
async function expectedAnswers() {
  if (!expected) {
    const { report: r, answers } = await run({ proxies: 4, burned: 0, blockRate: 0 });
    expect(r.right, 'the run without blocks answers everything').toBe(REQUESTS);
    expected = new Map(answers.map((a) => [a.path, a.body]));
  }
  return expected;
}

const show = (r: LoadReport) => JSON.stringify(r);

describe('a platform that blocks by address', () => {
  it('one burned exit of four and 20 % blocks: answers stay right, the burned exit is left alone', async () => {
    const { report: r } = await run({ proxies: 4, burned: 1, blockRate: 0.2 }, await expectedAnswers());
    expect(r.rightShare, show(r)).toBeGreaterThanOrEqual(0.97);
    expect(r.emptyAnswers, show(r)).toBe(0);
    expect(r.billedFailures, show(r)).toBe(0);
    expect(r.burnedShareSecondHalf, show(r)).toBeLessThanOrEqual(0.1);
  }, 120_000);

  it('two burned of four and 30 % blocks: what fails, fails fast, clean and unbilled', async () => {
    const { report: r, answers } = await run(
      { proxies: 4, burned: 2, blockRate: 0.3 },
      await expectedAnswers(),
    );
    const failures = answers.filter((a) => a.status !== 200);
    expect(r.cleanFailures, show(r)).toBe(failures.length);
    expect(r.billedFailures, show(r)).toBe(0);
    expect(r.emptyAnswers, show(r)).toBe(0);
    expect(r.rightShare, show(r)).toBeGreaterThanOrEqual(0.9);
  }, 120_000);

  it('no proxies and 20 % blocks: retried straight, answers stay right', async () => {
    const { report: r } = await run({ proxies: 0, burned: 0, blockRate: 0.2 }, await expectedAnswers());
    expect(r.rightShare, show(r)).toBeGreaterThanOrEqual(0.95);
    expect(r.emptyAnswers, show(r)).toBe(0);
    expect(r.billedFailures, show(r)).toBe(0);
  }, 120_000);
});
