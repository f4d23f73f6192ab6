// The full Unfurl app as the benchmarks' children run it: createServices + buildApp + listen on a
// fresh data directory, configured from the environment (embedded unless it names PostgreSQL/Redis),
// with one account granted plenty of credits.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { startJobProcessing } from '../../src/jobs/processing.js';
import { createServices } from '../../src/services.js';

export interface BenchApp {
  address: string;
  apiKey: string;
  close(): Promise<void>;
}

export async function startUnfurlApp(opts: {
  /** Names the data directory and the account. */
  name: string;
  credits: number;
  /** Run the jobs here too, as `unfurl serve` does embedded. */
  processJobs?: boolean;
}): Promise<BenchApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `unfurl-bench-${opts.name}-`));
  const config = loadConfig({ ...process.env, UNFURL_DATA_DIR: dataDir });
  const services = await createServices(config);
  const app = await buildApp(services, { logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1', backlog: config.listenBacklog });
  const processing = opts.processJobs ? await startJobProcessing(services, app.log) : null;
  const { accountId, apiKey } = await services.accounts.register(
    `bench-${opts.name}@example.com`,
    'bench-password',
  );
  await services.ledger.grant(accountId, opts.credits, 'benchmark');
  return {
    address,
    apiKey,
    async close() {
      await app.close();
      await processing?.stop();
      await services.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
