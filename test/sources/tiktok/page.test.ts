// The short-video page parser and the WAF proof-of-work on recorded and constructed pages.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTikTokPage } from '../../../src/sources/tiktok/page.js';
import { answerWafChallenge, parseWafChallenge, solvePow } from '../../../src/sources/tiktok/waf.js';
import { CAPTURED_ID, CONSTRUCTED_TIKTOK, SHARED_TIKTOK, wafPage } from './replay.js';

const page = (dir: string, name: string) => parseTikTokPage(fs.readFileSync(path.join(dir, name), 'utf8'));

describe('parseTikTokPage', () => {
  it('reads the captured video page: id, duration, play URLs and both caption tracks', () => {
    const parsed = page(SHARED_TIKTOK, `video-${CAPTURED_ID}.html`);
    expect(parsed.kind).toBe('video');
    if (parsed.kind !== 'video') return;
    const v = parsed.video;
    expect(v).toMatchObject({
      id: CAPTURED_ID,
      author: 'illojuan',
      durationSec: 64,
      createdAt: expect.any(Number),
      originalLang: 'es',
    });
    expect(v.description).toMatch(/^La nueva locurilla de fin de año/);
    expect(v.playUrls.length).toBeGreaterThan(1);
    expect(v.playUrls.every((u) => u.startsWith('https://'))).toBe(true);
    expect(new Set(v.playUrls).size).toBe(v.playUrls.length);
    expect(v.captions.map((c) => [c.lang, c.source, c.original, c.format])).toEqual([
      ['en', 'mt', false, 'webvtt'],
      ['es', 'asr', true, 'webvtt'],
    ]);
    expect(v.captions[1]!.url).toContain('0b8bf558f39e4a639dadf063da88f7da');
  });

  it('reads constructed pages: statuses, no captions, unplayable codecs left out', () => {
    expect(page(CONSTRUCTED_TIKTOK, 'page-status-10216.html')).toEqual({
      kind: 'status',
      code: 10216,
      message: 'item is private',
    });
    expect(page(CONSTRUCTED_TIKTOK, 'page-status-10204.html')).toMatchObject({ kind: 'status', code: 10204 });
    const quiet = page(CONSTRUCTED_TIKTOK, 'page-no-captions.html');
    if (quiet.kind !== 'video') throw new Error(quiet.kind);
    expect(quiet.video.captions).toEqual([]);
    expect(quiet.video.playUrls).toEqual([
      'https://v16-webapp-prime.tiktok.com/video/tos/constructed/quiet-540/?mime_type=video_mp4&expire=1',
      'https://v16-webapp-prime.tiktok.com/video/tos/constructed/quiet/?mime_type=video_mp4&expire=1',
    ]);
  });

  it('falls back to the older SIGI_STATE layout', () => {
    const sigi = {
      ItemModule: {
        '7100000000000000001': {
          id: '7100000000000000001',
          desc: 'old layout',
          author: 'olduser',
          video: {
            duration: 5,
            playAddr: 'https://v16-webapp.tiktok.com/video/tos/old/?a=1',
            subtitleInfos: [
              {
                LanguageCodeName: 'fra-FR',
                Url: 'https://v16-webapp.tiktok.com/sub/old/',
                Format: 'webvtt',
                Source: 'ASR',
              },
            ],
          },
        },
      },
    };
    const parsed = parseTikTokPage(
      `<script id="SIGI_STATE" type="application/json">${JSON.stringify(sigi)}</script>`,
    );
    if (parsed.kind !== 'video') throw new Error(parsed.kind);
    expect(parsed.video).toMatchObject({
      id: '7100000000000000001',
      durationSec: 5,
      playUrls: ['https://v16-webapp.tiktok.com/video/tos/old/?a=1'],
      captions: [
        {
          lang: 'fr',
          source: 'asr',
          original: true,
          format: 'webvtt',
          url: 'https://v16-webapp.tiktok.com/sub/old/',
        },
      ],
    });
  });

  it('tolerates pages without data and malformed JSON', () => {
    expect(parseTikTokPage('<html><body>hello</body></html>')).toEqual({ kind: 'unknown' });
    expect(parseTikTokPage('<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">{not json</script>')).toEqual({
      kind: 'unknown',
    });
    expect(
      parseTikTokPage(
        '<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application/json">{"__DEFAULT_SCOPE__":{"webapp.video-detail":{"statusCode":0,"itemInfo":{"itemStruct":{"id":"1","imagePost":{}}}}}}</script>',
      ),
    ).toEqual({ kind: 'no_video' });
  });
});

describe('WAF proof of work', () => {
  it('is not seen on ordinary pages', () => {
    expect(
      parseWafChallenge(fs.readFileSync(path.join(SHARED_TIKTOK, `video-${CAPTURED_ID}.html`), 'utf8')),
    ).toBeNull();
    expect(parseWafChallenge('<p id="cs" class="bm90IGpzb24="></p>')).toBeNull();
  });

  it('finds the number whose hash the page asks for, for any prefix and answer', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 32 }),
        fc.integer({ min: 0, max: 5_000 }),
        (bytes, answer) => {
          const prefix = Buffer.from(bytes);
          const digest = crypto.createHash('sha256').update(prefix).update(String(answer)).digest();
          expect(solvePow(prefix, digest)).toBe(answer);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('answers with the challenge JSON, d set, in the cookie the page names, plus the extra cookie', async () => {
    const prefix = crypto.randomBytes(12);
    const challenge = parseWafChallenge(wafPage(prefix, 73_917));
    expect(challenge).toMatchObject({
      cookieName: '_wafchallengeid',
      extraCookie: { name: 'waforiginalreid', value: 'constructed-rs' },
    });
    const cookie = (await answerWafChallenge(challenge!))!;
    const [first, second] = cookie.split('; ');
    expect(second).toBe('waforiginalreid=constructed-rs');
    const json = JSON.parse(Buffer.from(first!.slice('_wafchallengeid='.length), 'base64').toString('utf8'));
    expect(Buffer.from(json.d, 'base64').toString('utf8')).toBe('73917');
    expect(json.v.a).toBe(prefix.toString('base64'));
    expect(json.s).toBe('constructed'); // the rest of the challenge goes back untouched
  });

  it('gives up on a challenge with no answer in range', async () => {
    const challenge = parseWafChallenge(wafPage(Buffer.from('x'), 1))!;
    const unsolvable = { ...challenge, digest: Buffer.alloc(32) };
    expect(await answerWafChallenge(unsolvable, 50_000)).toBeNull();
    expect(await answerWafChallenge(challenge, 50_000)).toMatch(/^_wafchallengeid=/);
  });
});
