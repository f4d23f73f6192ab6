// A platform's wall on the health-aware path: two loopback exits, the first one walled (every request
// through it gets the wall's answer, as from an address the platform has blocked), the second reaching
// wherever it is asked. The settings point an app at both, with a bench longer than a test file runs.
import fs from 'node:fs';
import type http from 'node:http';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from './loopback.js';

export interface WalledExits {
  /** The paths the walled exit was asked for, in order. */
  walled: string[];
  /** UNFURL_PROXY_URLS and the settings that go with it (the platform's upstream is the caller's). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A recorded answer `{status, headers, body}` (a constructed fixture) as the wall's answer. */
export function recordedAnswer(file: string): (res: http.ServerResponse) => void {
  const { status, headers, body } = JSON.parse(fs.readFileSync(file, 'utf8'));
  return (res) => res.writeHead(status, headers).end(body);
}

export async function startWalledExits(wall: (res: http.ServerResponse) => void): Promise<WalledExits> {
  const walled: string[] = [];
  const wallServer: Loopback = await startServer((req, res) => {
    walled.push(req.url ?? '');
    req.resume();
    wall(res);
  });
  const walledExit: LoopbackProxy = await startConnectProxy(() => `127.0.0.1:${wallServer.port}`);
  const goodExit = await startConnectProxy();
  return {
    walled,
    env: {
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
      // Longer than a test file runs: the walled exit stays benched throughout.
      UNFURL_PROXY_BENCH_MS: '60000',
      UNFURL_PROXY_URLS: `${walledExit.url},${goodExit.url}`,
    },
    async close() {
      for (const s of [walledExit, goodExit, wallServer]) await s.close();
    },
  };
}
