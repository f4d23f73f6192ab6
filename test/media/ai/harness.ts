// One test app wired to the AI stand-in and a media server, with job processing running, the hooks
// that start and close them for a test file, and the helpers the AI tests share (read the balance
// and the ledger of a job).
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../../support/openai-server.js';
import { quietLogger } from '../../support/quiet-logger.js';
import { type MediaServer, startMediaServer } from './media.js';

export interface AiApp {
  t: TestApp;
  processing: JobProcessing | null;
  close(): Promise<void>;
}

export async function startAiApp(
  ai: OpenAiServer | null,
  overrides: Record<string, string> = {},
): Promise<AiApp> {
  const t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    ...(ai && { UNFURL_AI_BASE_URL: ai.baseUrl, UNFURL_AI_API_KEY: 'sk-test-key' }),
    UNFURL_AI_RETRY_BASE_MS: '40',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_JOB_BACKOFF_MS: '50',
    ...overrides,
  });
  const processing = await startJobProcessing(t.services, quietLogger);
  return {
    t,
    processing,
    async close() {
      await processing.stop(1000);
      await t.close();
    },
  };
}

export interface AiMediaApp {
  ai: OpenAiServer;
  media: MediaServer;
  main: AiApp;
}

/**
 * The setup the speech, describe and extract tests share, as the file's own hooks: the AI stand-in,
 * a media server that `prepare` fills with generated media, and the app; all closed after the tests,
 * and the stand-in's record reset before each. Without ffmpeg (`enabled` false) nothing starts.
 */
export function useAiMediaApp(
  enabled: boolean,
  prepare: (media: MediaServer) => Promise<void>,
  ready: (stage: AiMediaApp) => void,
): void {
  let stage: AiMediaApp | undefined;
  let ai: OpenAiServer | undefined;
  let media: MediaServer | undefined;

  beforeAll(async () => {
    if (!enabled) return;
    ai = await startOpenAiServer();
    media = await startMediaServer();
    await prepare(media);
    stage = { ai, media, main: await startAiApp(ai) };
    ready(stage);
  }, 60_000);

  afterAll(async () => {
    await stage?.main.close();
    await ai?.close();
    await media?.close();
  });

  beforeEach(() => ai?.reset());
}

export async function balance(t: TestApp, key: string): Promise<number> {
  return (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;
}

/** The ledger rows of one job: type and amount (holds, then the release, then the settlement). */
export async function ledgerOf(t: TestApp, jobId: string) {
  const rows = await t.services.store.db
    .selectFrom('credit_transactions')
    .select(['type', 'amount'])
    .where('job_id', '=', jobId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  // Entries of one transaction share a millisecond: a fixed order keeps the comparison stable.
  const order = ['hold', 'release', 'settled'];
  return rows
    .map((r) => ({ type: r.type, amount: Number(r.amount) }))
    .sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type) || a.amount - b.amount);
}
