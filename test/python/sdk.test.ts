// Our Python SDK (packages/python) against a real Unfurl: its pytest suite, run by the Python that
// has httpx and pytest (Debian's), with a listening server on the platform replay and a loopback
// website, and a second server whose tiny per-key rate limit answers real 429s. It runs in both
// deployments, as every test here does.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonWith } from '../../scripts/python.js';
import { type ClientTestServer, startClientTestServer } from '../sdk/server.js';
import { CONSTRUCTED_CHANNEL } from '../support/youtube-replay.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const python = pythonWith(['httpx', 'pytest']);
// CI installs them (python3-httpx, python3-pytest): there, missing is a failure, not a skip.
if (!python && process.env.CI === 'true') {
  throw new Error(
    'the Python SDK tests need python3 with httpx and pytest (Debian python3-httpx python3-pytest)',
  );
}

let s: ClientTestServer;
let limited: ClientTestServer;
let apiKey: string;

describe.skipIf(!python)(
  `unfurl for Python (pytest)${python ? '' : ' — skipped: no python3 with httpx and pytest'}`,
  () => {
    beforeAll(async () => {
      [s, limited] = await Promise.all([
        startClientTestServer(
          {
            // A dead provider address: extract and describe are accepted as jobs, and fail.
            UNFURL_AI_BASE_URL: 'http://127.0.0.1:9/v1',
            UNFURL_MONITOR_MIN_INTERVAL: '1s',
            UNFURL_MONITOR_POLL_MS: '50',
            UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
          },
          { publicUrlIsSelf: true },
        ),
        startClientTestServer({ UNFURL_RATE_LIMIT_RPS: '1', UNFURL_RATE_LIMIT_BURST: '1' }),
      ]);
      const account = await s.t.register();
      apiKey = account.apiKey;
      // Crawls of more than one poll answer (100 pages) cost more than the free credits.
      await s.t.services.ledger.grant(account.accountId, 2000, 'test: python sdk');
    });
    afterAll(async () => {
      await s?.close();
      await limited?.close();
    });

    it('passes its pytest suite against the server', async () => {
      const env = {
        ...process.env,
        PYTHONPATH: path.join(root, 'packages/python'),
        PYTHONDONTWRITEBYTECODE: '1',
        UNFURL_API_URL: `${s.url}/v1`,
        UNFURL_API_KEY: apiKey,
        UNFURL_TEST_SITE: s.site.url,
        UNFURL_TEST_LIMITED_URL: limited.url,
        UNFURL_TEST_CHANNEL: CONSTRUCTED_CHANNEL,
      };
      const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
        execFile(
          python!,
          ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--tb=short', '-rfE', 'packages/python/tests'],
          { cwd: root, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
          (err, stdout, stderr) =>
            resolve({ code: err ? Number(err.code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
        );
      });
      const summary = /(\d+) passed/.exec(output);
      expect(code, output).toBe(0);
      expect(Number(summary?.[1] ?? 0), output).toBeGreaterThanOrEqual(30);
      expect(output).not.toMatch(/\d+ (failed|error|skipped)/);
    }, 300_000);
  },
);
