// Our Python SDK (packages/python) against a real Unfurl: its pytest suite, and the guide's Python
// example as written, run by the Python that has httpx and pytest (Debian's), with a listening server on
// the platform replay and a loopback website (every web host reaches it, so the guide's example.com
// URLs work unchanged), and a second server whose tiny per-key rate limit answers real 429s. It runs in
// both deployments, as every test here does.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonWith } from '../../scripts/python.js';
import { type ClientTestServer, startClientTestServer } from '../sdk/server.js';
import { BEARER, startXReplay, type XReplay } from '../sources/x/replay.js';
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
let x: XReplay;
let apiKey: string;

function pythonEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PYTHONPATH: path.join(root, 'packages/python'),
    PYTHONDONTWRITEBYTECODE: '1',
    UNFURL_API_URL: `${s.url}/v1`,
    UNFURL_API_KEY: apiKey,
    UNFURL_TEST_SITE: s.site.url,
    UNFURL_TEST_LIMITED_URL: limited.url,
    UNFURL_TEST_CHANNEL: CONSTRUCTED_CHANNEL,
  };
}

function runPython(
  args: string[],
  input?: string,
): Promise<{ code: number; stdout: string; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      python!,
      args,
      { cwd: root, env: pythonEnv(), timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, output: `${stdout}\n${stderr}` }),
    );
    child.stdin?.end(input ?? '');
  });
}

describe.skipIf(!python)(
  `unfurl for Python${python ? '' : ' — skipped: no python3 with httpx and pytest'}`,
  () => {
    beforeAll(async () => {
      x = await startXReplay();
      [s, limited] = await Promise.all([
        startClientTestServer(
          {
            // A dead provider address: extract and describe are accepted as jobs, and fail.
            UNFURL_AI_BASE_URL: 'http://127.0.0.1:9/v1',
            UNFURL_UPSTREAM_X: x.url,
            UNFURL_X_BEARER_TOKEN: BEARER,
            UNFURL_MONITOR_MIN_INTERVAL: '1s',
            UNFURL_MONITOR_POLL_MS: '50',
            UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
          },
          { publicUrlIsSelf: true, everyWebHostIsSite: true },
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
      await x?.close();
    });

    it('passes its pytest suite against the server', async () => {
      const pytest = [
        '-m',
        'pytest',
        '-q',
        '-p',
        'no:cacheprovider',
        '--tb=short',
        '-rfE',
        'packages/python/tests',
      ];
      const { code, output } = await runPython(pytest);
      expect(code, output).toBe(0);
      expect(Number(/(\d+) passed/.exec(output)?.[1] ?? 0), output).toBeGreaterThanOrEqual(30);
      expect(output).not.toMatch(/\d+ (failed|error|skipped)/);
    }, 300_000);

    it("runs the guide's Python example as written", async () => {
      const guide = fs.readFileSync(path.join(root, 'docs/guide.md'), 'utf8');
      const start = guide.indexOf('\n### Python SDK (`unfurl`)\n');
      expect(start).toBeGreaterThan(0);
      const example = /```python\n([\s\S]*?)```/.exec(guide.slice(start))![1]!;
      const { code, stdout, output } = await runPython(['-'], example);
      expect(code, output).toBe(0);
      const lines = stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^Docs home CreditHeaders\(charged=1, /);
      expect(lines[1]).toMatch(/^en \d+$/);
      expect(lines).toContain('completed 5');
      expect(lines.filter((l) => /\/docs\/p\/\d+ \d+$/.test(l)).length).toBe(49);
      expect(lines.at(-2)).toMatch(/^not_found 404 Video nosuchvid01 not found.* nosuchvid01 req_\w+$/);
      expect(lines.at(-1)).toBe("['Page 0', 'Page 1', 'Page 2']");
    }, 120_000);
  },
);
