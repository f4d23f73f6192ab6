// The API's transcript shape: cues as chunks, merged up to chunkSize on sentence/word boundaries,
// or one string. Examples, plus properties over random cue lists.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeCues, shapeTranscript, type TranscriptCue } from '../../src/sources/transcript.js';

const cue = (text: string, offset: number, duration = 1000): TranscriptCue => ({ text, offset, duration });
const native = (cues: TranscriptCue[]) => ({ cues, lang: 'en', availableLangs: ['en', 'de'] });

describe('shapeTranscript', () => {
  const cues = [cue('Hello there.', 0), cue('How are you', 1000), cue('today?', 2000, 500)];

  it('answers the cues unmerged by default, each with lang', () => {
    expect(shapeTranscript(native(cues))).toEqual({
      content: [
        { text: 'Hello there.', offset: 0, duration: 1000, lang: 'en' },
        { text: 'How are you', offset: 1000, duration: 1000, lang: 'en' },
        { text: 'today?', offset: 2000, duration: 500, lang: 'en' },
      ],
      lang: 'en',
      availableLangs: ['en', 'de'],
    });
  });

  it('answers one string with text=true', () => {
    expect(shapeTranscript(native(cues), { text: true, chunkSize: 50 }).content).toBe(
      'Hello there. How are you today?',
    );
  });

  it('merges up to chunkSize, timing from the first start to the last end', () => {
    expect(shapeTranscript(native(cues), { chunkSize: 50 }).content).toEqual([
      { text: 'Hello there. How are you today?', offset: 0, duration: 2500, lang: 'en' },
    ]);
  });
});

describe('mergeCues', () => {
  it('closes a chunk at a sentence end when that keeps it at least half full', () => {
    const cues = [
      cue('The first sentence is here.', 0),
      cue('And the second one', 1000),
      cue('goes on and on', 2000),
      cue('until it ends.', 3000),
    ];
    // 50 characters: the first two cues (46) would fit, but the sentence ends after the first (27).
    expect(mergeCues(cues, 50).map((c) => c.text)).toEqual([
      'The first sentence is here.',
      'And the second one goes on and on until it ends.',
    ]);
  });

  it('does not close at a sentence end that would leave the chunk less than half full', () => {
    const cues = [cue('Short one.', 0), cue('then a much longer run of words', 1000), cue('and more.', 2000)];
    expect(mergeCues(cues, 50).map((c) => c.text)).toEqual([
      'Short one. then a much longer run of words',
      'and more.',
    ]);
  });

  it('closes at a word boundary when no sentence end is near', () => {
    const cues = [cue('one two', 0), cue('three four', 1000), cue('five six', 2000), cue('seven', 3000)];
    expect(mergeCues(cues, 20).map((c) => c.text)).toEqual(['one two three four', 'five six seven']);
  });

  it('cuts a cue longer than chunkSize at words, sharing its time out', () => {
    const long = cue('alpha beta gamma delta epsilon zeta eta theta iota kappa', 10_000, 5600);
    const pieces = mergeCues([long], 20);
    expect(pieces.map((p) => p.text)).toEqual([
      'alpha beta gamma',
      'delta epsilon zeta',
      'eta theta iota kappa',
    ]);
    expect(pieces[0]!.offset).toBe(10_000);
    expect(pieces.at(-1)!.offset + pieces.at(-1)!.duration).toBe(15_600);
    for (let i = 1; i < pieces.length; i++) {
      expect(pieces[i]!.offset).toBe(pieces[i - 1]!.offset + pieces[i - 1]!.duration);
    }
  });

  it('hard-cuts only a single word longer than chunkSize', () => {
    const word = 'x'.repeat(120);
    expect(mergeCues([cue(`a ${word} b`, 0)], 50).map((p) => p.text)).toEqual([
      'a',
      'x'.repeat(50),
      'x'.repeat(50),
      `${'x'.repeat(20)} b`,
    ]);
  });

  it('keeps every word, in order, in chunks no longer than chunkSize', () => {
    const word = fc.stringMatching(/^[a-z]{1,12}[.?!]?$/);
    const cueArb = fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(
        fc.array(cueArb, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 50, max: 300 }),
        (texts, size) => {
          const cues = texts.map((t, i) => cue(t, i * 1000, 900));
          const chunks = mergeCues(cues, size);
          expect(chunks.every((c) => c.text.length <= size && c.text.length > 0)).toBe(true);
          expect(chunks.map((c) => c.text).join(' ')).toBe(texts.join(' '));
          for (let i = 1; i < chunks.length; i++)
            expect(chunks[i]!.offset).toBeGreaterThanOrEqual(chunks[i - 1]!.offset);
        },
      ),
      { numRuns: 300 },
    );
  });
});
