// Polling a job's GET route until it has ended: the one loop the job, crawl, batch and media tests
// share. A poll that is not answered 200 fails the test at once rather than waiting out the deadline.
import { expect } from 'vitest';
import type { TestApp } from './app.js';

const ENDED = ['completed', 'failed'];

export interface WaitOptions {
  /** How long to wait before failing (default 60 s). */
  timeoutMs?: number;
  /** The statuses that stop the wait (default completed and failed). */
  statuses?: string[];
}

/** GETs `url` with `key` until the job's status is one of `statuses`; answers the last JSON body. */
export async function waitForJob(
  t: TestApp,
  key: string,
  url: string,
  { timeoutMs = 60_000, statuses = ENDED }: WaitOptions = {},
  // biome-ignore lint/suspicious/noExplicitAny: test helper reading JSON answers
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.call(key, { method: 'GET', url });
    expect(res.statusCode, `poll ${url}: ${res.body}`).toBe(200);
    const body = res.json();
    if (statuses.includes(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`job at ${url} still ${body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
