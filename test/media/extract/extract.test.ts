// Extract end to end: POST /v1/extract → the job (real ffmpeg, speech recognised by the stand-in,
// key frames, then the language model with response_format json_schema) → GET /v1/extract/{jobId}.
// The stand-in model answers from what it was sent (tones named in the transcript, images counted),
// so a right answer proves the transcript and frames reached it; wrong answers test ajv and the
// repair round; the schema it received is compared with the caller's.
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { startServer } from '../../support/loopback.js';
import type { ChatCall, OpenAiServer } from '../../support/openai-server.js';
import { waitForJob } from '../../support/wait-for-job.js';
import { type AiApp, balance, ledgerOf, startAiApp, useAiMediaApp } from '../ai/harness.js';
import { haveFfmpeg, type MediaServer, type Tone, toneMp3, toneVideo } from '../ai/media.js';

const ffmpeg = haveFfmpeg();
// Each test runs whole jobs (ffmpeg, several HTTP round trips): room for a loaded CI machine.
vi.setConfig({ testTimeout: 120_000 });

const TONES: Tone[] = [
  { startSec: 0.5, endSec: 2, hz: 440 },
  { startSec: 4, endSec: 5, hz: 660 },
  { startSec: 7, endSec: 8, hz: 880 },
];

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    tones: { type: 'array', items: { type: 'integer' }, description: 'pitches heard, in Hz' },
    frames: { type: 'integer', minimum: 0 },
  },
  required: ['tones', 'frames'],
  additionalProperties: false,
};

/** What a model that did its job would say: the tones named in the transcript, the images counted. */
const truthful = (call: ChatCall) => ({
  tones: [...call.text.matchAll(/\] tone (\d+) Hz/g)].map((m) => Number(m[1])),
  frames: call.images.length,
});

let ai: OpenAiServer;
let media: MediaServer;
let main: AiApp;

useAiMediaApp(
  ffmpeg,
  async (media) => {
    await toneVideo(path.join(media.dir, 'clip.mp4'), { durationSec: 9, tones: TONES });
    await toneMp3(path.join(media.dir, 'talk.mp3'), 70, [
      { startSec: 2, endSec: 4, hz: 500 },
      { startSec: 61, endSec: 63, hz: 700 },
    ]);
  },
  (stage) => {
    ({ ai, media, main } = stage);
  },
);

const submit = (app: AiApp, key: string, body: object) =>
  app.t.call(key, { method: 'POST', url: '/v1/extract', payload: body });

describe.skipIf(!ffmpeg)('POST /v1/extract', () => {
  it('with a schema: transcript and frames to the model with json_schema; the answer validated and returned', async () => {
    const { apiKey } = await main.t.register();
    ai.chat = (call) => JSON.stringify(truthful(call));
    const res = await submit(main, apiKey, {
      url: media.urlOf('clip.mp4'),
      prompt: 'List the tones.',
      schema: SCHEMA,
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['x-credits-held']).toBe('5');
    const poll = await waitForJob(main.t, apiKey, `/v1/extract/${res.json().jobId}`);
    expect(poll).toEqual({
      status: 'completed',
      data: { tones: [440, 660, 880], frames: 8 },
      schema: SCHEMA,
      error: null,
    });

    expect(ai.chats).toHaveLength(1);
    const call = ai.chats[0]!;
    const { $schema: _, ...sent } = SCHEMA;
    expect(call.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'extraction', schema: sent, strict: true },
    });
    expect(call.body.model).toBe('gpt-4o-mini');
    expect(call.text).toContain('List the tones.');
    expect(call.images).toHaveLength(8);
    for (const img of call.images) expect(Math.max(img.width, img.height)).toBe(512);
    expect(ai.uploads).toHaveLength(1);
    // 9 s: one started minute, 5 credits.
    expect(await balance(main.t, apiKey)).toBe(95);
  });

  it('an answer that breaks the schema gets one repair round with the errors', async () => {
    const { apiKey } = await main.t.register();
    ai.chat = (call, n) =>
      n === 1 ? JSON.stringify({ tones: 'three of them', frames: -1 }) : JSON.stringify(truthful(call));
    const { jobId } = (await submit(main, apiKey, { url: media.urlOf('clip.mp4'), schema: SCHEMA })).json();
    const poll = await waitForJob(main.t, apiKey, `/v1/extract/${jobId}`);
    expect(poll.data).toEqual({ tones: [440, 660, 880], frames: 8 });
    expect(ai.chats).toHaveLength(2);
    const repair = ai.chats[1]!.body.messages;
    expect(repair.at(-2)).toEqual({
      role: 'assistant',
      content: JSON.stringify({ tones: 'three of them', frames: -1 }),
    });
    const complaint = String(repair.at(-1)!.content);
    expect(complaint).toContain('/tones must be array');
    expect(complaint).toContain('/frames must be >= 0');
  });

  it('still wrong after the repair round: the job fails with an error object, released, and the webhook says so', async () => {
    const hooks: Array<Record<string, unknown>> = [];
    const receiver = await startServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        hooks.push(JSON.parse(body));
        res.writeHead(200).end();
      });
    });
    try {
      const { apiKey } = await main.t.register();
      ai.chat = () => 'Sure! Here is the data you asked for.';
      const { jobId } = (
        await submit(main, apiKey, {
          url: media.urlOf('clip.mp4'),
          schema: SCHEMA,
          webhookUrl: `${receiver.url}/hook`,
        })
      ).json();
      const poll = await waitForJob(main.t, apiKey, `/v1/extract/${jobId}`);
      expect(poll).toMatchObject({ status: 'failed', data: null, schema: null });
      expect(poll.error).toMatchObject({ error: 'upstream_error', details: null });
      expect(poll.error.message).toMatch(
        /^The model's answer was still invalid after a repair round: not valid JSON/,
      );
      expect(ai.chats).toHaveLength(2);
      expect(await balance(main.t, apiKey)).toBe(100);
      expect(await ledgerOf(main.t, jobId)).toEqual([
        { type: 'hold', amount: -5 },
        { type: 'release', amount: 5 },
      ]);
      for (let i = 0; i < 100 && hooks.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(hooks).toHaveLength(1);
      expect(hooks[0]).toMatchObject({ type: 'job.failed', data: { jobId, ...poll } });
    } finally {
      await receiver.close();
    }
  });

  it('without a schema the model proposes one first; it is returned with the data', async () => {
    const { apiKey } = await main.t.register();
    const proposed = {
      type: 'object',
      properties: { highestTone: { type: 'integer', description: 'the highest pitch heard, Hz' } },
      required: ['highestTone'],
    };
    ai.chat = (call, n) =>
      n === 1 ? JSON.stringify(proposed) : JSON.stringify({ highestTone: Math.max(...truthful(call).tones) });
    const { jobId } = (
      await submit(main, apiKey, { url: media.urlOf('clip.mp4'), prompt: 'What is the highest tone?' })
    ).json();
    const poll = await waitForJob(main.t, apiKey, `/v1/extract/${jobId}`);
    expect(poll).toEqual({ status: 'completed', data: { highestTone: 880 }, schema: proposed, error: null });
    expect(ai.chats).toHaveLength(2);
    const [ask, extract] = ai.chats;
    expect(ask!.body.response_format).toEqual({ type: 'json_object' });
    expect(ask!.text).toContain('What is the highest tone?');
    expect(ask!.text).toContain('Propose a JSON Schema');
    // Not strict-compatible (no additionalProperties: false): sent with strict false.
    expect(extract!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'extraction', schema: proposed, strict: false },
    });
  });

  it('audio only: the transcript alone; 5 credits per started minute (70 s → 10)', async () => {
    const { apiKey } = await main.t.register();
    ai.chat = (call) => JSON.stringify(truthful(call));
    const res = await submit(main, apiKey, { url: media.urlOf('talk.mp3'), schema: SCHEMA });
    const poll = await waitForJob(main.t, apiKey, `/v1/extract/${res.json().jobId}`);
    expect(poll.data).toEqual({ tones: [500, 700], frames: 0 });
    expect(ai.chats[0]!.text).toContain('[01:01] tone 700 Hz.');
    expect(await ledgerOf(main.t, res.json().jobId)).toEqual([
      { type: 'hold', amount: -5 },
      { type: 'hold', amount: -5 },
      { type: 'release', amount: 10 },
      { type: 'settled', amount: -10 },
    ]);
  });

  it('checks prompt and schema at submit: 400 naming them, nothing held', async () => {
    const { apiKey } = await main.t.register();
    const url = media.urlOf('clip.mp4');
    const cases: Array<[object, string, RegExp]> = [
      [{ url }, 'prompt', /prompt', 'schema' or both/],
      [{ url, prompt: '   ' }, 'prompt', /prompt', 'schema' or both/],
      [{ url, schema: { type: 'array' } }, 'schema', /must describe an object/],
      [
        { url, schema: { type: 'object', properties: { a: { type: 'strin' } } } },
        'schema',
        /not a valid JSON Schema/,
      ],
      [{ url, schema: { type: 'object', required: 'a' } }, 'schema', /not a valid JSON Schema/],
      // Look-ahead is not linear-time: the RE2 engine refuses it (no ReDoS through `pattern`).
      [
        { url, schema: { type: 'object', properties: { a: { type: 'string', pattern: '^(?=a)(a+)+$' } } } },
        'schema',
        /cannot be compiled/,
      ],
      [
        { url, schema: { type: 'object', description: 'x'.repeat(40_000) } },
        'schema',
        /bytes; at most 32768/,
      ],
      [{ url: 'file:///etc/passwd', prompt: 'x' }, 'url', /only http and https/],
    ];
    for (const [body, param, message] of cases) {
      const res = await submit(main, apiKey, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(res.json().details).toBe(param);
      expect(res.json().message).toMatch(message);
    }
    expect(await balance(main.t, apiKey)).toBe(100);
    expect(ai.chats).toHaveLength(0);
  });
});

describe.skipIf(!ffmpeg)('extract without a provider', () => {
  it('503 provider_unavailable at submit, nothing held', async () => {
    const bare = await startAiApp(null);
    try {
      const { apiKey } = await bare.t.register();
      const res = await submit(bare, apiKey, { url: media.urlOf('clip.mp4'), prompt: 'anything' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ error: 'provider_unavailable' });
      expect(await balance(bare.t, apiKey)).toBe(100);
    } finally {
      await bare.close();
    }
  });
});
