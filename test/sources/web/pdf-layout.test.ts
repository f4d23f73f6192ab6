// The layout → Markdown rules on hand-placed runs of text (no PDF): what a reader would call a
// heading, a paragraph, a list, a table, and what repeats on every page as furniture.
import { describe, expect, it } from 'vitest';
import {
  joinLines,
  type LayoutItem,
  type LayoutPage,
  layoutToMarkdown,
} from '../../../src/sources/web/pdf-layout.js';

/** A run of text: x, baseline y (from the top), size; its width estimated from its length. */
const run = (x: number, y: number, size: number, text: string, bold = false): LayoutItem => ({
  text,
  x,
  y,
  width: text.length * size * 0.5,
  size,
  bold,
});
const page = (...items: LayoutItem[]): LayoutPage => ({ width: 612, height: 792, items });

const prose = (y: number, text: string) => run(72, y, 11, text);
const LONG = 'and this sentence is long enough to fill a line of body text on the page';

describe('layoutToMarkdown', () => {
  it('makes headings of sizes larger than the body, the largest first', () => {
    const md = layoutToMarkdown([
      page(
        run(72, 100, 24, 'Title'),
        prose(130, `First paragraph ${LONG}.`),
        run(72, 160, 16, 'Section'),
        prose(185, `Second paragraph ${LONG}.`),
        run(72, 215, 13, 'Subsection'),
        prose(240, `Third paragraph ${LONG}.`),
      ),
    ]);
    expect(md).toBe(
      `# Title\n\nFirst paragraph ${LONG}.\n\n## Section\n\nSecond paragraph ${LONG}.\n\n### Subsection\n\nThird paragraph ${LONG}.`,
    );
  });

  it('joins a heading set on two lines', () => {
    const md = layoutToMarkdown([
      page(run(72, 100, 20, 'A heading that runs'), run(72, 124, 20, 'onto a second line'), prose(160, LONG)),
    ]);
    expect(md.split('\n')[0]).toBe('# A heading that runs onto a second line');
  });

  it('joins lines into paragraphs, rejoins hyphenated words and splits at wider gaps', () => {
    const md = layoutToMarkdown([
      page(
        prose(100, `One ${LONG} and it goes on to the next hyphen-`),
        prose(114, `ated line ${LONG}.`),
        prose(140, `Two ${LONG} after a wider gap.`),
      ),
    ]);
    expect(md).toBe(
      `One ${LONG} and it goes on to the next hyphenated line ${LONG}.\n\nTwo ${LONG} after a wider gap.`,
    );
  });

  it('starts a paragraph at an indented first line', () => {
    const md = layoutToMarkdown([
      page(
        prose(100, `One ${LONG} too.`),
        prose(114, `Its end ${LONG}.`),
        prose(128, 'Short end.'),
        run(90, 142, 11, `Two ${LONG}.`),
      ),
    ]);
    expect(md.split('\n\n')).toHaveLength(2);
  });

  it('reads bullets, numbers and letters as list items, nested by indent', () => {
    const md = layoutToMarkdown([
      page(
        prose(100, `Intro ${LONG}:`),
        prose(124, '• First'),
        run(90, 138, 11, '◦ Inner'),
        prose(152, '• Second, whose text'),
        run(82, 166, 11, 'wraps under it'),
        prose(190, '1. One'),
        prose(204, '2) Two'),
        prose(228, 'a) Alpha'),
        run(72, 252, 11, '▪'),
        run(95, 252, 11, 'Marker apart from its text'),
      ),
    ]);
    expect(md).toBe(
      [
        `Intro ${LONG}:`,
        '',
        '- First\n    - Inner\n- Second, whose text wraps under it\n1. One\n2. Two\n- a) Alpha\n- Marker apart from its text',
      ].join('\n'),
    );
  });

  it('makes a GFM table of runs that line up in columns across rows', () => {
    const row = (y: number, cells: string[]) => cells.map((c, i) => run(72 + i * 150, y, 11, c));
    const md = layoutToMarkdown([
      page(
        prose(100, `Before ${LONG}.`),
        ...row(130, ['Name', 'Qty', 'Note']),
        ...row(145, ['Apple', '3', 'red | green']),
        ...row(160, ['Pear', '12', '']),
        ...row(175, ['Plum', '7', 'sweet']),
        prose(205, `After ${LONG}.`),
      ),
    ]);
    expect(md).toBe(
      [
        `Before ${LONG}.`,
        '',
        '| Name | Qty | Note |',
        '| --- | --- | --- |',
        '| Apple | 3 | red \\| green |',
        '| Pear | 12 |  |',
        '| Plum | 7 | sweet |',
        '',
        `After ${LONG}.`,
      ].join('\n'),
    );
  });

  it('does not make a table of a single line with a wide gap', () => {
    const md = layoutToMarkdown([page(prose(100, 'Left'), run(400, 100, 11, 'Right'), prose(130, LONG))]);
    expect(md).not.toContain('|');
  });

  it('marks bold runs, and a bold paragraph as a whole', () => {
    const md = layoutToMarkdown([
      page(
        run(72, 100, 11, 'Note:', true),
        run(104, 100, 11, 'this is plain.'),
        run(72, 130, 11, 'All of this is bold', true),
        prose(160, LONG),
      ),
    ]);
    expect(md).toBe(`**Note:** this is plain.\n\n**All of this is bold**\n\n${LONG}`);
  });

  it('drops running heads and page numbers, keeps headings that start every page', () => {
    const pages = [1, 2, 3].map((n) =>
      page(
        run(72, 30, 9, 'Journal of Examples, vol. 3'),
        run(72, 80, 18, `Chapter ${n}`),
        prose(110, `Body of chapter ${n} ${LONG}.`),
        run(300, 770, 9, `Page ${n} of 3`),
      ),
    );
    const md = layoutToMarkdown(pages);
    expect(md).not.toContain('Journal');
    expect(md).not.toContain('Page ');
    expect(md).toContain('# Chapter 2\n\nBody of chapter 2');
  });

  it('drops a bare page number on a single page', () => {
    expect(layoutToMarkdown([page(prose(100, LONG), run(300, 770, 9, '7'))])).toBe(LONG);
  });

  it('continues a paragraph cut by a page break', () => {
    const md = layoutToMarkdown([
      page(prose(700, `The sentence ${LONG}`)),
      page(prose(100, `continues here ${LONG}.`)),
    ]);
    expect(md).toBe(`The sentence ${LONG} continues here ${LONG}.`);
  });

  it('puts spaces between runs set apart, none inside a word split into runs', () => {
    const md = layoutToMarkdown([
      page(
        run(72, 100, 10, 'con'),
        run(87, 100, 10, 'fi'),
        run(97, 100, 10, 'dential'),
        run(140, 100, 10, 'words'),
      ),
    ]);
    expect(md).toBe('confidential words');
  });

  it('makes a fenced code block of monospaced lines, their indentation kept', () => {
    const code = (x: number, y: number, text: string): LayoutItem => ({
      ...run(x, y, 10, text),
      width: text.length * 6,
      mono: true,
    });
    const md = layoutToMarkdown([
      page(
        prose(100, `Consider ${LONG}:`),
        code(72, 120, 'Group ::= SEQUENCE {'),
        code(84, 132, 'id    OBJECT IDENTIFIER,'),
        code(84, 144, 'value  Value'),
        code(72, 156, '}'),
        prose(180, `After ${LONG}.`),
      ),
    ]);
    expect(md).toBe(
      `Consider ${LONG}:\n\n\`\`\`\nGroup ::= SEQUENCE {\n  id    OBJECT IDENTIFIER,\n  value  Value\n}\n\`\`\`\n\nAfter ${LONG}.`,
    );
  });

  it('ignores empty and NUL runs and answers nothing for no text', () => {
    expect(layoutToMarkdown([])).toBe('');
    expect(layoutToMarkdown([page(run(72, 100, 11, '  '), run(72, 120, 11, '\0\0'))])).toBe('');
  });

  it('joinLines: soft and hard hyphens, dashes', () => {
    expect(joinLines('infor-', 'mation')).toBe('information');
    expect(joinLines('infor\u00ad', 'mation')).toBe('information');
    expect(joinLines('well-', 'Known')).toBe('well-Known');
    expect(joinLines('a', 'b')).toBe('a b');
  });
});
