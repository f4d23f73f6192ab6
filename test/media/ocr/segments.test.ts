// Merging per-frame readings into segments, and reading tesseract's TSV: pure functions on made-up
// readings whose right answer is known.
import { describe, expect, it } from 'vitest';
import { joinLines, mergeReadings, stitch } from '../../../src/media/ocr/preprocess.js';
import { buildSegments } from '../../../src/media/ocr/segments.js';
import { type OcrLine, parseTsv } from '../../../src/media/ocr/tesseract.js';
import { characterErrorRate, editDistance, similarity } from '../../../src/media/ocr/text-similarity.js';

const line = (text: string, left = 100, top = 300, width = 300, height = 20, conf = 90): OcrLine => ({
  text,
  conf,
  left,
  top,
  width,
  height,
});
const opts = { intervalMs: 500, durationMs: 10_000 };

describe('text similarity', () => {
  it('edit distance, similarity and CER', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(similarity('Hello', 'hello')).toBe(1);
    expect(similarity('abcd', 'abcx')).toBe(0.75);
    expect(characterErrorRate('Hello  world', 'Hello world')).toBe(0);
    expect(characterErrorRate('abcd', 'abxd')).toBe(0.25);
  });
});

describe('buildSegments', () => {
  it('merges identical and near-identical consecutive readings; boundaries from the frame timing', () => {
    const frames = [
      [],
      [line('The quick brown fox')],
      [line('The quick brown f0x')],
      [line('The quick brown fox')],
      [],
      [],
      [line('Another caption')],
      [line('Another caption')],
    ];
    expect(buildSegments(frames, opts)).toEqual([
      { text: 'The quick brown fox', startMs: 500, endMs: 2000 },
      { text: 'Another caption', startMs: 3000, endMs: 4000 },
    ]);
  });

  it('follows lines on their own: a logo spanning several captions, a caption replaced in place', () => {
    const logo = line('UNFURL TV', 500, 10, 100, 15);
    const frames = [
      [logo, line('First words here')],
      [logo, line('First words here')],
      [logo, line('Second line now')],
      [logo, line('Second line now')],
      [logo],
    ];
    expect(buildSegments(frames, opts)).toEqual([
      { text: 'First words here', startMs: 0, endMs: 1000 },
      { text: 'UNFURL TV', startMs: 0, endMs: 2500 },
      { text: 'Second line now', startMs: 1000, endMs: 2000 },
    ]);
  });

  it('partial readings in the same place continue the segment and count for the full text', () => {
    const frames = [
      [line('See you next week')],
      [line('See you week')],
      [line('See week')],
      [line('See you next week')],
    ];
    expect(buildSegments(frames, opts)).toEqual([{ text: 'See you next week', startMs: 0, endMs: 2000 }]);
  });

  it('survives one missed frame, not two; drops one-frame scraps', () => {
    const frames = [
      [line('Steady text')],
      [],
      [line('Steady text')],
      [],
      [],
      [line('Steady text')],
      [line('xy', 10, 10, 10, 10)],
    ];
    expect(buildSegments(frames, opts)).toEqual([
      { text: 'Steady text', startMs: 0, endMs: 1500 },
      { text: 'Steady text', startMs: 2500, endMs: 3000 },
    ]);
  });
});

describe('merging the readings of one frame', () => {
  it('keeps the fuller reading where two overlap, and lines only one reading found', () => {
    const gray = [line('one', 250, 300, 60, 20, 96), line('UN', 500, 10, 30, 15, 97)];
    // Read at twice the size.
    const bright = [
      line('Hello caption one', 400, 600, 440, 40, 95),
      line('UNFURL TV', 1000, 20, 250, 30, 94),
    ];
    const merged = mergeReadings([
      { lines: gray, scale: 1 },
      { lines: bright, scale: 2 },
    ]);
    expect(merged.map((l) => l.text)).toEqual(['UNFURL TV', 'Hello caption one']);
    expect(merged[1]).toMatchObject({ left: 200, top: 300, width: 220, height: 20 });
  });

  it('stitches overlapping pieces and joins pieces of one row', () => {
    expect(
      stitch(line('ORDER NOW: call', 129, 171, 240, 20), line('call 555-0199', 306, 171, 204, 20))?.text,
    ).toBe('ORDER NOW: call 555-0199');
    expect(stitch(line('ORDER NOW', 129, 171, 140, 20), line('555-0199', 386, 171, 124, 20))).toBeNull();
    expect(
      joinLines([line('555-0199', 386, 171, 124, 19), line('ORDER NOW:', 129, 171, 153, 19)]).map(
        (l) => l.text,
      ),
    ).toEqual(['ORDER NOW: 555-0199']);
    // Far apart, or of very different size: two lines.
    expect(joinLines([line('left', 0, 100, 50, 20), line('right', 400, 100, 50, 20)])).toHaveLength(2);
    expect(joinLines([line('small', 0, 100, 50, 10), line('BIG', 60, 90, 50, 40)])).toHaveLength(2);
  });
});

describe('parseTsv', () => {
  const row = (
    page: number,
    block: number,
    lineNo: number,
    word: number,
    conf: number,
    text: string,
    left = 10 * word,
  ) => ['5', page, block, 1, lineNo, word, left, 100, 40, 20, conf, text].join('\t');
  it('groups words into lines per page and filters texture noise', () => {
    const tsv = [
      'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
      ['1', 1, 0, 0, 0, 0, 0, 0, 640, 360, -1, ''].join('\t'),
      row(1, 1, 1, 1, 96, 'Hello'),
      row(1, 1, 1, 2, 95, 'world'),
      row(1, 1, 1, 3, 30, 'junk'),
      row(1, 2, 1, 1, 76, '28'),
      row(1, 3, 1, 1, 80, 'ee'),
      row(1, 3, 1, 2, 70, ':|'),
      row(2, 1, 1, 1, 92, 'Second'),
      row(2, 1, 1, 2, 93, 'page'),
      row(2, 2, 1, 1, 50, 'blurry'),
    ].join('\n');
    const pages = parseTsv(tsv);
    expect(pages.get(1)?.map((l) => l.text)).toEqual(['Hello world']);
    expect(pages.get(1)?.[0]).toMatchObject({ left: 10, top: 100, width: 40 + 10, height: 20 });
    expect(pages.get(2)?.map((l) => l.text)).toEqual(['Second page']);
  });
});
