// Caption files (WebVTT and SRT as the platforms serve them) → cues, language codes, and the language
// preference over a platform's tracks. Pure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseTrack } from '../../../src/sources/caption-choice.js';
import { normaliseLang, parseCaptionFile } from '../../../src/sources/caption-files.js';

describe('parseCaptionFile', () => {
  it('reads WebVTT: header, notes, identifiers, settings, markup, entities, short timestamps', () => {
    const body = [
      '\uFEFFWEBVTT - constructed',
      'Kind: captions',
      '',
      'NOTE a note that spans',
      'two lines',
      '',
      'STYLE',
      '::cue { color: yellow }',
      '',
      'intro',
      '00:01.000 --> 00:02.500 align:start line:90%',
      '<v Speaker>Hello</v> <b>there</b> &amp; welcome',
      '',
      '01:00:00.005 --> 01:00:01.1',
      'one hour &lt;in&gt;',
      'second line',
      '',
      '00:00:03.000 --> 00:00:04.000',
      '',
    ].join('\r\n');
    expect(parseCaptionFile(body)).toEqual([
      { text: 'Hello there & welcome', offset: 1000, duration: 1500 },
      { text: 'one hour <in> second line', offset: 3_600_005, duration: 1095 },
    ]);
  });

  it('reads SRT: numbered blocks, comma milliseconds, italics', () => {
    const body =
      '1\n00:00:00,500 --> 00:00:02,750\n<i>T-minus</i> ten\n\n2\n00:00:02,750 --> 00:00:05,000\nEngines &#233;lite &#x2764;\n';
    expect(parseCaptionFile(body)).toEqual([
      { text: 'T-minus ten', offset: 500, duration: 2250 },
      { text: 'Engines élite ❤', offset: 2750, duration: 2250 },
    ]);
  });

  it('never throws and never returns an empty cue, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (body) => {
        for (const cue of parseCaptionFile(body)) {
          expect(cue.text.length).toBeGreaterThan(0);
          expect(cue.duration).toBeGreaterThanOrEqual(0);
        }
      }),
    );
    expect(parseCaptionFile('')).toEqual([]);
    expect(parseCaptionFile('<html>not captions</html>')).toEqual([]);
  });

  it('keeps every timed cue of a generated file in order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 10_000_000 }),
            fc.integer({ min: 0, max: 60_000 }),
            fc.stringMatching(/^[a-z]{1,12}( [a-z]{1,12}){0,4}$/),
          ),
          { maxLength: 20 },
        ),
        fc.boolean(),
        (cues, srt) => {
          const stamp = (ms: number) => {
            const h = Math.floor(ms / 3_600_000);
            const m = Math.floor(ms / 60_000) % 60;
            const s = Math.floor(ms / 1000) % 60;
            const pad = (n: number, w = 2) => String(n).padStart(w, '0');
            return `${pad(h)}:${pad(m)}:${pad(s)}${srt ? ',' : '.'}${pad(ms % 1000, 3)}`;
          };
          const body =
            (srt ? '' : 'WEBVTT\n\n') +
            cues
              .map(
                ([at, len, text], i) =>
                  `${srt ? `${i + 1}\n` : ''}${stamp(at)} --> ${stamp(at + len)}\n${text}\n`,
              )
              .join('\n');
          expect(parseCaptionFile(body)).toEqual(
            cues.map(([at, len, text]) => ({ text, offset: at, duration: len })),
          );
        },
      ),
    );
  });
});

describe('normaliseLang', () => {
  it.each([
    ['eng-US', 'en'],
    ['spa-ES', 'es'],
    ['en_US', 'en-US'],
    ['pt-br', 'pt-BR'],
    ['fr', 'fr'],
    ['zho-Hans', 'zh'],
    ['xyz-AB', 'xyz'],
  ])('%s → %s', (raw, want) => {
    expect(normaliseLang(raw)).toBe(want);
  });
});

describe('chooseTrack', () => {
  const tracks = [
    { lang: 'en', auto: true, original: false, translated: true, name: 'en MT' },
    { lang: 'es', auto: true, original: true, name: 'es ASR' },
    { lang: 'pt-BR', auto: false, original: false, name: 'pt creator' },
    { lang: 'pt-BR', auto: true, original: false, name: 'pt auto' },
  ];
  it('prefers the creator track in the language, then automatic, then a translation into it', () => {
    expect(chooseTrack(tracks, 'pt')?.name).toBe('pt creator');
    expect(chooseTrack(tracks, 'PT-br')?.name).toBe('pt creator');
    expect(chooseTrack(tracks, 'es')?.name).toBe('es ASR');
    expect(chooseTrack(tracks, 'en-GB')?.name).toBe('en MT');
  });
  it('falls back to the original-language track, else the first usable one', () => {
    expect(chooseTrack(tracks, 'de')?.name).toBe('es ASR');
    expect(chooseTrack(tracks, undefined)?.name).toBe('es ASR');
    expect(chooseTrack([tracks[0]!, tracks[3]!], null)?.name).toBe('pt auto');
    expect(chooseTrack([], 'en')).toBeNull();
  });
});
