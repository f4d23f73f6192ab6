// The browser pool's slot keeper on its own (no browser needed): per-account limits, the order in which
// waiters are served, and the 429/503 refusals after the queue wait, with their Retry-After.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { errorStatus, retryAfterHeader } from '../../../src/http/error-status.js';
import { RenderSlots } from '../../../src/sources/web/render-slots.js';

const settings = { size: 3, accountMax: 2, queueTimeoutMs: 200, holdMs: 30_000 };

describe('RenderSlots', () => {
  it('starts at once while the pool and the account have room', async () => {
    const slots = new RenderSlots(settings);
    const a1 = await slots.acquire('A');
    const a2 = await slots.acquire('A');
    const b1 = await slots.acquire('B');
    for (const release of [a1, a2, b1]) release();
  });

  it("refuses an account's render over its own limit with 429 and Retry-After, even with slots free", async () => {
    const slots = new RenderSlots(settings);
    const held = [await slots.acquire('A'), await slots.acquire('A')];
    const started = Date.now();
    const err = await slots.acquire('A').catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'rate_limited' });
    expect(errorStatus[(err as AppError).code]).toBe(429);
    // At the latest, A's oldest render gives its slot back when its time limit (30 s) is up.
    expect(Number(retryAfterHeader((err as AppError).retryAfterMs!))).toBe(30);
    // Another account is not held back by A's limit.
    const b = await slots.acquire('B');
    for (const release of [...held, b]) release();
  });

  it('refuses with 503 and Retry-After when the pool is full and the account is under its limit', async () => {
    const slots = new RenderSlots(settings);
    const held = [await slots.acquire('A'), await slots.acquire('A'), await slots.acquire('B')];
    const err = await slots.acquire('C').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'service_unavailable' });
    expect(errorStatus[(err as AppError).code]).toBe(503);
    expect(Number(retryAfterHeader((err as AppError).retryAfterMs!))).toBeGreaterThanOrEqual(29);
    for (const release of held) release();
  });

  it('gives a freed slot to the account with the fewest renders running, before older waiters', async () => {
    const slots = new RenderSlots({ ...settings, size: 2, accountMax: 2, queueTimeoutMs: 5000 });
    const [a1, a2] = [await slots.acquire('A'), await slots.acquire('A')];
    const order: string[] = [];
    const wait = (account: string, tag: string) =>
      slots.acquire(account).then((release) => {
        order.push(tag);
        return release;
      });
    const waiting = [wait('A', 'a3'), wait('A', 'a4'), wait('B', 'b1'), wait('B', 'b2')];
    a1();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['b1']); // A has one running, B none
    a2();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['b1', 'a3']); // one each now: the oldest waiter
    const releases = await Promise.all(waiting.slice(0, 1).concat(waiting.slice(2, 3)));
    for (const release of releases) release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['b1', 'a3', 'a4', 'b2']);
    for (const release of await Promise.all(waiting)) release();
  });

  it('lets an aborted waiter leave the queue, and a release count only once', async () => {
    const slots = new RenderSlots({ ...settings, size: 1, queueTimeoutMs: 300 });
    const first = await slots.acquire('A');
    const controller = new AbortController();
    const reason = new Error('gave up');
    const quitter = slots.acquire('B', controller.signal).catch((e: unknown) => e);
    const next = slots.acquire('C');
    controller.abort(reason);
    expect(await quitter).toBe(reason);
    first();
    first(); // a second call must not free a slot that is not its own
    const c = await next;
    const err = await slots.acquire('D').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'service_unavailable' });
    c();
  });
});
