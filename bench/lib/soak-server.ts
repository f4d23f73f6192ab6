// Child process of the soak benchmark (bench/soak.ts): the full Unfurl app (createServices +
// buildApp + listen + job processing, embedded unless the env names PostgreSQL/Redis) with one account granted plenty
// of credits. Sends `{ address, apiKey }` over IPC once it listens; answers the message 'stats' with
// `{ stats }`: its memory after a full garbage collection (so what is left is what is still referenced)
// and its active handles by type; closes on 'stop' (or when the parent goes).
import v8 from 'node:v8';
import vm from 'node:vm';
import { startUnfurlApp } from './unfurl-app.js';

export interface SoakStats {
  rssMb: number;
  heapUsedMb: number;
  externalMb: number;
  /** Active handles and requests (sockets, timers, file handles …) by type. */
  handles: Record<string, number>;
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

// The collector is reached without a flag on the command line: set the flag, then read `gc` from a
// fresh context, which sees it.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

function stats(): SoakStats {
  collectGarbage();
  const m = process.memoryUsage();
  const handles: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) handles[type] = (handles[type] ?? 0) + 1;
  return { rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), externalMb: mb(m.external), handles };
}

if (process.send) {
  // The jobs run here too, as in `unfurl serve` embedded (and as `unfurl worker` would, distributed).
  const app = await startUnfurlApp({ name: 'soak', credits: 1_000_000_000, processJobs: true });
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    await app.close();
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
    else if (m === 'stats') process.send!({ stats: stats() });
  });
  process.on('disconnect', () => void stop());
  process.send({ address: app.address, apiKey: app.apiKey });
}
