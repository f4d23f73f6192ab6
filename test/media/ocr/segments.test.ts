// Merging per-frame readings into segments, and reading tesseract's TSV: pure functions on made-up
// readings whose right answer is known.
import { describe, expect, it } from 'vitest';
import { joinLines, mergeReadings, stitch } from '../../../src/media/ocr/merge.js';
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

  it('a stray mark read beside a logo now and then neither splits it nor wins its text', () => {
    const logo = (text: string, left = 488, width = 138) => line(text, left, 12, width, 16);
    const frames = [
      ...Array.from({ length: 6 }, () => [logo('UNFURL TV')]),
      [logo('4 UNFURL TV', 460, 166)],
      [logo('3 UNFURL', 465, 121)],
      [logo('3 UNFURL', 465, 121)],
      ...Array.from({ length: 6 }, () => [logo('UNFURL TV')]),
    ];
    expect(buildSegments(frames, opts)).toEqual([{ text: 'UNFURL TV', startMs: 0, endMs: 7500 }]);
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

  it('merges two readings of one line word by word', () => {
    // Words side by side, 60 px apart at scale 1; `at` places a word at slot k.
    const at = (text: string, k: number, conf = 95, scale = 1) => ({
      text,
      conf,
      left: (100 + 60 * k) * scale,
      top: 300 * scale,
      width: 50 * scale,
      height: 20 * scale,
    });
    const lineOf = (words: ReturnType<typeof at>[]): OcrLine => ({
      text: words.map((w) => w.text).join(' '),
      conf: words.reduce((s, w) => s + w.conf, 0) / words.length,
      left: words[0]!.left,
      top: words[0]!.top,
      width: words.at(-1)!.left + words.at(-1)!.width - words[0]!.left,
      height: words[0]!.height,
      words,
    });
    const merge = (a: ReturnType<typeof at>[], b: ReturnType<typeof at>[]) =>
      mergeReadings([
        { lines: [lineOf(a)], scale: 1 },
        { lines: [lineOf(b)], scale: 2 },
      ]).map((l) => l.text);
    // Each image misses a different word; the mask (read at twice the size) has the trailing number.
    expect(
      merge(
        [at('Order', 0, 97), at('before', 1, 97), at('Friday', 2, 97)],
        [at('Order', 0, 96, 2), at('before', 1, 96, 2), at('noon', 3, 96, 2), at('17', 4, 96, 2)],
      ),
    ).toEqual(['Order before Friday noon 17']);
    // A misread word loses to a surer reading of the same place; a reading missing a letter supports
    // the fuller one.
    expect(
      merge(
        [at('New', 0, 85), at('more', 1, 90), at('videos', 2, 90), at('LO', 3, 80)],
        [at('ew', 0, 95, 2), at('more', 1, 95, 2), at('videos', 2, 95, 2), at('10', 3, 96, 2)],
      ),
    ).toEqual(['New more videos 10']);
    // A word over two of the other reading's words is the line cut differently: left out.
    const glued = { ...at('storer20', 1, 99, 2), width: 110 * 2 };
    expect(merge([at('nearest', 0), at('store', 1), at('20', 2)], [glued])).toEqual(['nearest store 20']);
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

  it('keeps a short word beside a long one at its height, drops one that overlaps a long word', () => {
    // [page, block, line, word, conf, text, left, top, width, height]
    const at = (
      block: number,
      word: number,
      conf: number,
      text: string,
      left: number,
      top = 100,
      width = 60,
      height = 40,
    ) => ['5', 1, block, 1, 1, word, left, top, width, height, conf, text].join('\t');
    const tsv = [
      // Tesseract reads a lone trailing digit unsurely even when right.
      at(1, 1, 95, 'Serve', 0),
      at(1, 2, 96, 'berries', 80, 100, 100),
      at(1, 3, 68, '7', 200, 102, 20, 38),
      // A mark on the edge of a word, read surely.
      at(2, 1, 96, 'with', 0, 200),
      at(2, 2, 93, 'v', 90, 190, 30, 60),
      at(2, 3, 96, 'warm', 100, 200),
      // An unsure short word far from the long words, or on another row: texture.
      at(3, 1, 95, 'Hello', 0, 300),
      at(3, 2, 70, 'ae', 400, 300, 30, 40),
      at(3, 3, 70, 'xy', 70, 360, 30, 40),
    ].join('\n');
    expect(
      parseTsv(tsv)
        .get(1)
        ?.map((l) => l.text),
    ).toEqual(['Serve berries 7', 'with warm', 'Hello']);
  });
});
