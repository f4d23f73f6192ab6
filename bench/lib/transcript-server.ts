// Child process of the transcript benchmark (bench/transcript.ts): starts one server on a loopback
// port, sends `{ address, apiKey? }` to the parent over IPC, and closes it on 'stop' (or when the
// parent goes away).
//   replay <n>  test/support/youtube-replay.ts, the stand-in platform replaying real captures, with
//               <n> made-up video ids (benchId(0) … benchId(n-1)) that answer the captured player
//               (youtube-transcript-api/youtube.innertube.json.static, ~197 KB) for every client, so
//               that a load of distinct ids is never coalesced by the app's single-flight. It records
//               every request it serves; here those records are tallied by path and dropped once a
//               second (memory stays flat under load), and the message 'counts' answers
//               `{ counts: { '<path>': n, … } }` since start.
//   unfurl      the full Unfurl app (createServices + buildApp + listen), configured from this
//               process's env, with one account granted BENCH_CREDITS (default 100 000 000) credits;
//               its key is sent as `apiKey`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createServices } from '../../src/services.js';
import { CAPTURES, startYouTubeReplay } from '../../test/support/youtube-replay.js';

/** The i-th made-up video id (11 characters, as the platform's are). */
export const benchId = (i: number) => `bench${String(i).padStart(6, '0')}`;

async function replay(ids: number) {
  const players: Record<string, Record<string, string>> = {};
  for (let i = 0; i < ids; i++) players[benchId(i)] = { '*': CAPTURES.playerOk };
  const server = await startYouTubeReplay({ players });
  const counts: Record<string, number> = {};
  const tally = () => {
    for (const r of server.requests) counts[r.path] = (counts[r.path] ?? 0) + 1;
    server.requests.length = 0;
  };
  const timer = setInterval(tally, 1000);
  process.on('message', (m) => {
    if (m !== 'counts') return;
    tally();
    process.send!({ counts });
  });
  return {
    address: server.url,
    async close() {
      clearInterval(timer);
      await server.close();
    },
  };
}

async function unfurl() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-transcript-'));
  const services = await createServices(loadConfig({ ...process.env, UNFURL_DATA_DIR: dataDir }));
  const app = await buildApp(services, { logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const { accountId, apiKey } = await services.accounts.register(
    'bench-transcript@example.com',
    'bench-password',
  );
  await services.ledger.grant(accountId, Number(process.env.BENCH_CREDITS ?? 100_000_000), 'benchmark');
  return {
    address,
    apiKey,
    async close() {
      await app.close();
      await services.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// Only when forked as this script: the parent imports benchId from here.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const [kind, arg] = process.argv.slice(2);
  if (kind !== 'replay' && kind !== 'unfurl') throw new Error(`unknown server kind "${kind}"`);
  const server = kind === 'replay' ? await replay(Number(arg ?? 1)) : await unfurl();
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    await server.close();
    process.exit(0);
  };
  process.on('message', (m) => m === 'stop' && void stop());
  process.on('disconnect', () => void stop());
  const { close: _close, ...hello } = server;
  process.send!({ ...hello });
}
