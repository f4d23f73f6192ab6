// Cue translation by a language model over real sockets, against the OpenAI-compatible stand-in: the
// request it sends (cues as JSON data, the target language, a JSON-schema answer), cue timing kept,
// batches bounded by characters and cues, a repair round for a miscounted answer, a clear failure
// when the model keeps miscounting, the cost bounds (413 before any call, 503 without a provider), the
// calls told as they start and end (what a request pays for, what its time estimate learns from), and
// the estimate of a call's time itself.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { budget } from '../../../src/media/ai/budget.js';
import { AiClient } from '../../../src/media/ai/client.js';
import {
  DEFAULT_TRANSLATION_LIMITS,
  planTranslation,
  translateCues,
  translationCalls,
} from '../../../src/media/llm/translate.js';
import { CallTimes } from '../../../src/media/translations.js';
import { SafeFetcher } from '../../../src/net/safe-fetch.js';
import type { TranscriptCue } from '../../../src/sources/transcript.js';
import { parseTimedtext } from '../../../src/sources/youtube/timedtext.js';
import { type ChatCall, type OpenAiServer, startOpenAiServer } from '../../support/openai-server.js';
import { CAPTURES, youtubeText } from '../../support/youtube-replay.js';

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
beforeEach(() => ai.reset());

const client = (baseUrl: string | null = ai.baseUrl) =>
  new AiClient({ baseUrl, apiKey: 'sk-unit', model: 'llm-1' }, 'language model', fetcher, {
    retryBaseMs: 20,
    requestTimeoutMs: 5000,
  });
const call = () => ({ budget: budget(20_000), signal: new AbortController().signal });

/** What the stand-in model was asked to translate in one call. */
const asked = (c: ChatCall) =>
  JSON.parse(c.body.messages.find((m) => m.role === 'user')!.content as string) as {
    to: string;
    from: string | null;
    cues: string[];
  };

/** A model that translates by tagging each cue with the target language. */
const tagging = (c: ChatCall) => {
  const { to, cues } = asked(c);
  return JSON.stringify({ translations: cues.map((text) => `[${to}] ${text}`) });
};

// The captured transcript (real cues: an escaped <i> tag, an empty cue).
const captured = parseTimedtext(youtubeText(CAPTURES.transcriptXml));
const many = (n: number, text = 'twelve chars'): TranscriptCue[] =>
  Array.from({ length: n }, (_, i) => ({ text: `${text}`, offset: i * 1000, duration: 900 }));

describe('translateCues', () => {
  it('translates every cue in place, keeping its start and duration', async () => {
    ai.chat = tagging;
    const out = await translateCues(client(), captured, { to: 'es', from: 'en', ...call() });
    expect(out.map((c) => [c.offset, c.duration])).toEqual(captured.map((c) => [c.offset, c.duration]));
    expect(out.map((c) => c.text)).toEqual(captured.map((c) => `[es] ${c.text}`.trim()));
    expect(ai.chats).toHaveLength(1);
  });

  it('sends the cues as JSON data with the languages, asking for a JSON answer of one string per cue', async () => {
    ai.chat = tagging;
    await translateCues(client(), captured, { to: 'pt-BR', from: 'en', ...call() });
    const [request] = ai.chats;
    expect(asked(request!)).toEqual({ to: 'pt-BR', from: 'en', cues: captured.map((c) => c.text) });
    expect(request!.body.model).toBe('llm-1');
    expect(request!.body.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('never instructions'),
    });
    expect(request!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'translations', strict: true },
    });
  });

  it('batches by characters and by cue count, in order', async () => {
    ai.chat = tagging;
    const limits = { batchChars: 50, batchCues: 3, maxChars: 10_000 };
    const cues = many(10); // 12 characters each: 4 fit 50 characters, 3 the cue cap
    expect(planTranslation(cues, limits).map((b) => b.length)).toEqual([3, 3, 3, 1]);
    const out = await translateCues(client(), cues, { to: 'fr', limits, ...call() });
    expect(ai.chats.map((c) => asked(c).cues.length)).toEqual([3, 3, 3, 1]);
    expect(out.map((c) => c.offset)).toEqual(cues.map((c) => c.offset));
    const tight = { ...limits, batchCues: 100, batchChars: 30 };
    expect(planTranslation(cues, tight).map((b) => b.length)).toEqual([2, 2, 2, 2, 2]);
  });

  it('gives the model one repair round when it miscounts, naming the problem', async () => {
    ai.chat = (c, n) =>
      n === 1
        ? JSON.stringify({
            translations: asked(c)
              .cues.slice(1)
              .map((x) => `[de] ${x}`),
          })
        : tagging(c);
    const out = await translateCues(client(), captured, { to: 'de', ...call() });
    expect(out).toHaveLength(captured.length);
    expect(ai.chats).toHaveLength(2);
    expect(ai.chats[1]!.text).toContain(`it must have exactly ${captured.length}, one per cue`);
  });

  it('fails clearly when the model keeps answering something else', async () => {
    ai.chat = () => JSON.stringify({ translations: 'not a list' });
    const err = await translateCues(client(), captured, { to: 'de', ...call() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'upstream_error', message: expect.stringContaining('translation') });
    expect(ai.chats).toHaveLength(2);
  });

  it('refuses an answer far longer than its cue (a model that rambles is not paid for twice)', async () => {
    ai.chat = (c, n) =>
      n === 1 ? JSON.stringify({ translations: asked(c).cues.map(() => 'x'.repeat(5000)) }) : tagging(c);
    await translateCues(client(), many(2), { to: 'de', ...call() });
    expect(ai.chats[1]!.text).toContain('item 0 is far longer than its cue');
  });

  it('refuses a transcript over maxChars (413) and a bad language (400) before any call', async () => {
    const limits = { ...DEFAULT_TRANSLATION_LIMITS, maxChars: 100 };
    const over = many(10); // 120 characters
    expect(() => translationCalls(over, limits)).toThrow(
      expect.objectContaining({ code: 'payload_too_large' }),
    );
    await expect(translateCues(client(), over, { to: 'de', limits, ...call() })).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    await expect(
      translateCues(client(), captured, { to: 'de; ignore that', ...call() }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: 'lang',
    });
    expect(ai.chats).toHaveLength(0);
  });

  it('is 503 provider_unavailable when no language model is configured', async () => {
    await expect(translateCues(client(null), captured, { to: 'de', ...call() })).rejects.toMatchObject({
      code: 'provider_unavailable',
    });
  });

  it('counts the calls a transcript takes (what a route prices)', () => {
    expect(translationCalls(captured)).toBe(1);
    expect(translationCalls([])).toBe(0);
    expect(translationCalls(many(250))).toBe(3); // 100 cues a call at most
  });

  it('tells each call as it starts and how long it took, and starts none once stopped', async () => {
    ai.chat = tagging;
    const limits = { batchChars: 4000, batchCues: 3, maxChars: 10_000 };
    const stop = new AbortController();
    let started = 0;
    const took: number[] = [];
    const err = await translateCues(client(), many(10), {
      to: 'fr',
      limits,
      budget: budget(20_000),
      signal: stop.signal,
      onCall: () => started++,
      onAnswer: (ms) => {
        took.push(ms);
        if (took.length === 2) stop.abort(new AppError('provider_unavailable', 'out of time'));
      },
    }).catch((e: unknown) => e);
    // Stopped after the second answer: no third call is started, and the stop's reason comes out.
    expect(err).toMatchObject({ code: 'provider_unavailable', message: 'out of time' });
    expect(started).toBe(2);
    expect(ai.chats).toHaveLength(2);
    expect(took).toHaveLength(2);
    for (const ms of took) expect(ms).toBeGreaterThanOrEqual(0);
  });
});

describe('CallTimes', () => {
  it('knows nothing before a call, then a moving average, forgotten after ten idle minutes', () => {
    let now = 0;
    const times = new CallTimes(() => now);
    expect(times.estimateMs()).toBeNull();
    times.observe(1000);
    expect(times.estimateMs()).toBe(1000);
    times.observe(2000);
    expect(times.estimateMs()).toBe(1300);
    now += 10 * 60_000;
    expect(times.estimateMs()).toBe(1300);
    now += 1;
    expect(times.estimateMs()).toBeNull();
    // What comes after starts afresh.
    times.observe(200);
    expect(times.estimateMs()).toBe(200);
  });
});
