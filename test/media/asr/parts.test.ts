// The pure pieces of speech recognition: where long audio is cut, how silencedetect's report is
// read, how segments land on the recording's clock, and language names → codes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { languageCode, recogniserLanguage } from '../../../src/media/asr/languages.js';
import { parseSilences } from '../../../src/media/asr/silence.js';
import { planParts } from '../../../src/media/asr/split.js';
import { maxPartSeconds, segmentsToCues } from '../../../src/media/asr/transcribe.js';

describe('planParts', () => {
  it('one part when the audio fits', () => {
    expect(planParts(100, [], 120)).toEqual([{ startSec: 0, endSec: 100 }]);
  });

  it('cuts in the middle of the latest pause that keeps the part under the limit', () => {
    const silences = [
      { startSec: 20, endSec: 22 },
      { startSec: 50, endSec: 54 },
      { startSec: 70, endSec: 72 },
    ];
    expect(planParts(100, silences, 60)).toEqual([
      { startSec: 0, endSec: 52 },
      { startSec: 52, endSec: 100 },
    ]);
  });

  it('ignores pauses in the first half of a part (no tiny parts) and cuts hard without a pause', () => {
    expect(planParts(100, [{ startSec: 5, endSec: 7 }], 40)).toEqual([
      { startSec: 0, endSec: 40 },
      { startSec: 40, endSec: 80 },
      { startSec: 80, endSec: 100 },
    ]);
  });

  it('property: parts tile the audio, none longer than the limit', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 20_000, noNaN: true }),
        fc.array(
          fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 5, noNaN: true })),
        ),
        fc.integer({ min: 2, max: 3000 }),
        (duration, raw, max) => {
          const silences = raw
            .map(([at, len]) => ({
              startSec: at * duration,
              endSec: Math.min(duration, at * duration + len),
            }))
            .sort((a, b) => a.startSec - b.startSec);
          const parts = planParts(duration, silences, max);
          expect(parts[0]!.startSec).toBe(0);
          expect(parts.at(-1)!.endSec).toBe(duration);
          for (const [i, p] of parts.entries()) {
            expect(p.endSec - p.startSec).toBeLessThanOrEqual(max + 1e-9);
            expect(p.endSec).toBeGreaterThan(p.startSec);
            if (i > 0) expect(p.startSec).toBe(parts[i - 1]!.endSec);
          }
        },
      ),
    );
  });

  it('parts stay under the upload limit at 32 kbit/s', () => {
    expect(maxPartSeconds(25 * 1024 * 1024)).toBe(6355);
    for (const limit of [16 * 1024, 65536, 25 * 1024 * 1024]) {
      expect(maxPartSeconds(limit) * 4000).toBeLessThan(limit);
    }
  });
});

describe('parseSilences', () => {
  it('pairs starts and ends; a silence still open at the end runs to the end', () => {
    const report = [
      'frame:10   pts:16000   pts_time:1',
      'lavfi.silence_start=0.98',
      'frame:30   pts:48000   pts_time:3',
      'lavfi.silence_end=3.02',
      'lavfi.silence_duration=2.04',
      'frame:60   pts:96000   pts_time:6',
      'lavfi.silence_start=-0.01',
      'lavfi.silence_end=0.5',
      'lavfi.silence_start=9.5',
    ].join('\n');
    expect(parseSilences(report, 12)).toEqual([
      { startSec: 0.98, endSec: 3.02 },
      { startSec: 0, endSec: 0.5 },
      { startSec: 9.5, endSec: 12 },
    ]);
    expect(parseSilences('', 5)).toEqual([]);
  });
});

describe('segmentsToCues', () => {
  const part = { startSec: 60, endSec: 90 };

  it('puts segments on the whole recording’s clock in ms, trimmed, within the part', () => {
    expect(
      segmentsToCues(
        {
          segments: [
            { start: 0, end: 2.345, text: '  Hello  there. ' },
            { start: 29, end: 31, text: 'past the end' },
          ],
        },
        part,
      ),
    ).toEqual([
      { text: 'Hello there.', offset: 60_000, duration: 2345 },
      { text: 'past the end', offset: 89_000, duration: 1000 },
    ]);
  });

  it('drops empty text, likely hallucinations on silence, and back-to-back repeats', () => {
    const cues = segmentsToCues(
      {
        segments: [
          { start: 0, end: 1, text: 'real words' },
          { start: 1, end: 2, text: '' },
          { start: 2, end: 3, text: 'Thanks for watching!', no_speech_prob: 0.9, avg_logprob: -1.5 },
          { start: 3, end: 4, text: 'loop' },
          { start: 4, end: 5, text: 'loop' },
        ],
      },
      part,
    );
    expect(cues.map((c) => c.text)).toEqual(['real words', 'loop']);
  });

  it('text-only answers (json models) become one cue for the part', () => {
    expect(segmentsToCues({ text: ' all of it ' }, part)).toEqual([
      { text: 'all of it', offset: 60_000, duration: 30_000 },
    ]);
    expect(segmentsToCues({ text: '' }, part)).toEqual([]);
  });
});

describe('languageCode', () => {
  it.each([
    ['english', 'en'],
    ['English', 'en'],
    ['german', 'de'],
    ['chinese', 'zh'],
    ['haitian creole', 'ht'],
    ['en', 'en'],
    ['pt-br', 'pt-BR'],
    ['jw', 'jv'],
    ['', 'und'],
    [null, 'und'],
    ['klingon', 'und'],
  ])('%s → %s', (name, code) => {
    expect(languageCode(name)).toBe(code);
  });
});

describe('recogniserLanguage (the request’s lang as a recogniser hint)', () => {
  it.each([
    ['en', 'en'],
    ['pt-BR', 'pt'],
    ['zh_Hant', 'zh'],
    ['DE', 'de'],
    ['haw', 'haw'],
    ['tlh', null],
    ['xx-YY', null],
    [undefined, null],
  ])('%s → %s', (lang, code) => {
    expect(recogniserLanguage(lang)).toBe(code);
  });
});
