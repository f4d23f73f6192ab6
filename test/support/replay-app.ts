// The setup the platform tests share: a loopback replay of one platform and a test app whose
// UNFURL_UPSTREAM_<PLATFORM> points at it (private addresses allowed, upstream retries at once), with
// an account registered on it. It registers the file's hooks itself: both start before the tests
// and close after them, the app first; `ready` hands the running pieces to the test file.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTestApp, type TestApp } from './app.js';
import type { Loopback } from './loopback.js';

export interface ReplayApp<R> {
  replay: R;
  t: TestApp;
  /** The API key of the registered account ('' when `register` is false). */
  key: string;
}

export interface ReplayAppOptions<R> {
  /** The platform part of UNFURL_UPSTREAM_<PLATFORM>, e.g. 'YOUTUBE'. */
  upstream: string;
  /** Starts the replay server. */
  start: () => Promise<R>;
  /** More settings for the app (they win over the ones above). */
  env?: Record<string, string>;
  /** Register an account (default true). */
  register?: boolean;
  /** Empty `replay.requests` before each test, so a test sees only its own requests (default false). */
  clearRequests?: boolean;
}

export function useReplayApp<R extends Loopback & { requests: unknown[] }>(
  { upstream, start, env = {}, register = true, clearRequests = false }: ReplayAppOptions<R>,
  ready: (stage: ReplayApp<R>) => void,
): void {
  let replay: R | undefined;
  let t: TestApp | undefined;

  beforeAll(async () => {
    replay = await start();
    t = await createTestApp({
      [`UNFURL_UPSTREAM_${upstream}`]: replay.url,
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
      ...env,
    });
    const key = register ? (await t.register()).apiKey : '';
    ready({ replay, t, key });
  });

  afterAll(async () => {
    await t?.close();
    await replay?.close();
  });

  if (clearRequests) {
    beforeEach(() => {
      replay!.requests.length = 0;
    });
  }
}
