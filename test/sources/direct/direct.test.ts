// Direct media files as the sixth source: recognised by extension, no captions of their own (native →
// 404, auto/generate → speech recognition), located as they are, downloaded through net/ and
// confirmed by probing the file with ffprobe.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../../src/errors.js';
import { errorStatus } from '../../../src/http/error-status.js';
import { probe } from '../../../src/media/ffmpeg.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';

/** A 16 kHz mono PCM WAV of silence, `seconds` long. */
function wav(seconds: number): Buffer {
  const rate = 16_000;
  const data = Buffer.alloc(rate * 2 * seconds);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

let files: Loopback;
let t: TestApp;
let key: string;

beforeAll(async () => {
  files = await startServer((req, res) => {
    if (req.url === '/talks/silence.wav') {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      return res.end(wav(2));
    }
    if (req.url === '/big/film.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      return res.end(Buffer.alloc(300 * 1024, 5));
    }
    res.writeHead(404);
    res.end();
  });
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_MEDIA_MAX_BYTES: String(256 * 1024),
  });
  key = (await t.register()).apiKey;
});

afterAll(async () => {
  await t?.close();
  await files?.close();
});

const transcript = (url: string, extra = '') =>
  t.call(key, { method: 'GET', url: `/v1/transcript?url=${encodeURIComponent(url)}${extra}` });

describe('direct media files', () => {
  it('have no captions: native → 404, auto and generate → speech recognition, nothing charged', async () => {
    const url = `${files.url}/talks/silence.wav`;
    const before = (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;
    const native = await transcript(url, '&mode=native');
    expect([native.statusCode, native.json().error]).toEqual([404, 'transcript_unavailable']);
    for (const mode of ['auto', 'generate']) {
      const res = await transcript(url, `&mode=${mode}`);
      expect([mode, res.statusCode, res.json().error]).toEqual([mode, 503, 'provider_unavailable']);
    }
    expect((await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits).toBe(before);
  });

  it('are located as they are and downloaded whole; the file probes as the sound it claims', async () => {
    const { ref, location } = await t.services.platforms.locate(`${files.url}/talks/silence.wav`);
    expect(ref.platform).toBe('direct');
    expect(location).toEqual({
      upstream: 'web',
      url: `${files.url}/talks/silence.wav`,
      durationSec: null,
      kind: 'audio',
    });
    const probed = await t.services.scratch.with('direct', async (dir) => {
      const file = await t.services.downloader.download(location, dir);
      expect(file).toMatchObject({ bytes: 44 + 2 * 32_000, contentType: 'audio/wav' });
      expect(file.path).toMatch(/\.wav$/);
      return probe(file.path);
    });
    expect(probed).toMatchObject({ hasAudio: true, hasVideo: false });
    expect(probed.durationSec).toBeCloseTo(2, 1);
  });

  it('over UNFURL_MEDIA_MAX_BYTES are refused with 413 and leave no file', async () => {
    const { location } = await t.services.platforms.locate(`${files.url}/big/film.mp4`);
    let scratchDir = '';
    const err = await t.services.scratch
      .with('direct-big', async (dir) => {
        scratchDir = dir;
        try {
          return await t.services.downloader.download(location, dir);
        } finally {
          expect(readdirSync(dir)).toEqual([]);
        }
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'payload_too_large' });
    expect(errorStatus[(err as AppError).code]).toBe(413);
    expect(scratchDir).not.toBe('');
  });
});
