// The provider client over real sockets: what it sends, how it retries (429/5xx, Retry-After),
// and that it never hangs — the job's budget and its signal end every call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { budget } from '../../../src/media/ai/budget.js';
import { chat } from '../../../src/media/ai/chat.js';
import { AiClient } from '../../../src/media/ai/client.js';
import { SafeFetcher } from '../../../src/net/safe-fetch.js';
import { retryAfterMs } from '../../../src/net/waiting.js';
import { startServer } from '../../support/loopback.js';
import { type OpenAiServer, startOpenAiServer } from '../../support/openai-server.js';

let ai: OpenAiServer;
let fetcher: SafeFetcher;

beforeAll(async () => {
  ai = await startOpenAiServer();
  fetcher = new SafeFetcher({ allowPrivateNetwork: true });
});
afterAll(async () => {
  await fetcher.close();
  await ai.close();
});

const client = (opts: { retryBaseMs?: number; requestTimeoutMs?: number; apiKey?: string | null } = {}) =>
  new AiClient(
    { baseUrl: ai.baseUrl, apiKey: opts.apiKey === undefined ? 'sk-unit' : opts.apiKey, model: 'm-1' },
    'vision',
    fetcher,
    { retryBaseMs: opts.retryBaseMs ?? 20, requestTimeoutMs: opts.requestTimeoutMs ?? 5000 },
  );
const live = () => new AbortController().signal;
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

/** The job failure a call ended with: an AppError that says whether another attempt may help. */
async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).retryable).not.toBeNull();
  return err as AppError;
}

describe('AiClient', () => {
  it('posts JSON with the model and bearer key; answers the first choice', async () => {
    ai.reset();
    ai.chat = () => 'hello back';
    expect(await chat(client(), ask, { budget: budget(10_000), signal: live() })).toBe('hello back');
    expect(ai.chats[0]!.body.model).toBe('m-1');
    expect(ai.chats[0]!.authorization).toBe('Bearer sk-unit');
    ai.reset();
    await chat(client({ apiKey: null }), ask, { budget: budget(10_000), signal: live() });
    expect(ai.chats[0]!.authorization).toBeUndefined();
  });

  it('retries 5xx with doubling pauses, then succeeds', async () => {
    ai.reset();
    ai.failWith = (_route, n) => (n <= 2 ? { status: 502, body: 'Bad Gateway' } : null);
    expect(await chat(client({ retryBaseMs: 100 }), ask, { budget: budget(10_000), signal: live() })).toMatch(
      /video/,
    );
    const at = ai.log.map((l) => l.at);
    expect(ai.log.map((l) => l.status)).toEqual([502, 502, 200]);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(75);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(150);
  });

  it('a Retry-After longer than the time budget fails at once, naming the budget', async () => {
    ai.reset();
    ai.failWith = () => ({
      status: 429,
      headers: { 'retry-after': '30' },
      body: { error: { message: 'slow down' } },
    });
    const started = Date.now();
    const err = await failure(chat(client(), ask, { budget: budget(2000), signal: live() }));
    expect(Date.now() - started).toBeLessThan(1500);
    expect(err.code).toBe('provider_unavailable');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe(
      "The vision provider did not answer within the job's time budget (last: HTTP 429: slow down)",
    );
  });

  it('a provider that never answers is cut off by the request timeout and the budget', async () => {
    // A silent server: accepts the request, never answers.
    const silent = await startServer(() => {});
    try {
      const slow = new AiClient(
        { baseUrl: `${silent.url}/v1`, apiKey: null, model: 'm' },
        'language model',
        fetcher,
        {
          retryBaseMs: 10,
          requestTimeoutMs: 300,
        },
      );
      const started = Date.now();
      const err = await failure(chat(slow, ask, { budget: budget(800), signal: live() }));
      expect(Date.now() - started).toBeLessThan(2500);
      expect(err.code).toBe('provider_unavailable');
      expect(err.message).toMatch(
        /language model provider (did not answer within the job's time budget|failed 4 times)/,
      );
      expect(err.message).toContain('no answer in time');
    } finally {
      await silent.close();
    }
  });

  it('the job’s signal stops a call at once, with the signal’s reason', async () => {
    ai.reset();
    ai.failWith = () => ({ status: 503, headers: { 'retry-after': '5' } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('job timed out')), 200);
    const started = Date.now();
    const err = await chat(client(), ask, { budget: budget(60_000), signal: controller.signal }).catch(
      (e) => e,
    );
    expect((err as Error).message).toBe('job timed out');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('4xx other than 429 is not retried; a refusal or a cut-off answer is a clear failure', async () => {
    ai.reset();
    ai.failWith = () => ({ status: 400, body: { error: { message: "Invalid 'messages'" } } });
    const bad = await failure(chat(client(), ask, { budget: budget(10_000), signal: live() }));
    expect(bad.message).toBe("The vision provider refused the request (HTTP 400: Invalid 'messages')");
    expect(bad.code).toBe('upstream_error');
    expect(ai.log).toHaveLength(1);

    ai.reset();
    ai.chat = () => ({
      status: 200,
      body: { choices: [{ finish_reason: 'length', message: { content: '{"a": ' } }] },
    });
    expect((await failure(chat(client(), ask, { budget: budget(10_000), signal: live() }))).message).toBe(
      "The vision model's answer was cut off (too long)",
    );
    ai.chat = () => ({
      status: 200,
      body: { choices: [{ message: { content: null, refusal: 'I cannot help' } }] },
    });
    expect((await failure(chat(client(), ask, { budget: budget(10_000), signal: live() }))).message).toBe(
      'The vision model refused: I cannot help',
    );
    ai.chat = () => ({ status: 200, body: '<html>oops</html>' });
    expect((await failure(chat(client(), ask, { budget: budget(10_000), signal: live() }))).message).toBe(
      'The vision provider answered with something other than JSON',
    );
  });

  it('does not follow redirects from the provider', async () => {
    ai.reset();
    ai.failWith = () => ({ status: 307, headers: { location: 'http://169.254.169.254/latest' } });
    const err = await failure(chat(client(), ask, { budget: budget(10_000), signal: live() }));
    expect(err.message).toMatch(/^The vision provider refused the request \(HTTP 307/);
    expect(ai.log).toHaveLength(1);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('0.5')).toBe(500);
    expect(retryAfterMs(new Date(10_000 + 3000).toUTCString(), 10_000)).toBe(3000);
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
  });
});
