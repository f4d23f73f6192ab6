// pdfToMarkdown on real PDFs built here: a report with a running head, page numbers, headings, a
// hyphenated line end, lists and a table; a scanned page (an image of text, drawn by ffmpeg, and no
// text layer) read by OCR with poppler's pdftoppm and tesseract; long, huge and hostile files; and
// PDFs that cannot be read (no PDF at all, cut short, locked with a password).
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { pdfToMarkdown } from '../../../src/sources/web/pdf.js';
import { renderDpi } from '../../../src/sources/web/pdf-ocr.js';
import { lockedTrailer, pdfOf } from '../../support/pdf.js';

const esc = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
/** One run of text: x, y (from the bottom, in points), size, bold. */
const t = (x: number, y: number, size: number, text: string, bold = false) =>
  `BT /F${bold ? 2 : 1} ${size} Tf ${x} ${y} Td (${esc(text)}) Tj ET`;

/** A running head and a page number, as a report prints them on every page. */
const furniture = (page: number) =>
  [t(72, 760, 9, 'ACME Corp - Quarterly Report 2025'), t(300, 30, 9, String(page))].join('\n');

const BULLET = '\x95'; // WinAnsiEncoding's bullet

function report(): Uint8Array {
  const body = 11;
  const page1 = [
    furniture(1),
    t(72, 700, 24, 'Quarterly Report', true),
    t(
      72,
      670,
      body,
      'This quarter the company grew in every region it serves, and the new process brought improve-',
    ),
    t(
      72,
      656,
      body,
      'ments to every team that adopted it early in the year, well ahead of the plan we made.',
    ),
    t(
      72,
      634,
      body,
      'A second paragraph starts after a wider gap than the one between the lines of the first.',
    ),
    t(72, 600, 16, 'Highlights', true),
    t(72, 578, body, `${BULLET} Revenue up 12 percent`),
    t(72, 564, body, `${BULLET} Costs down 3 percent`),
    t(72, 550, body, `${BULLET} Two new offices`),
    t(72, 528, body, '1. Hire engineers'),
    t(72, 514, body, '2. Open the Lisbon office'),
  ];
  const page2 = [
    furniture(2),
    t(72, 700, 16, 'Results by region', true),
    t(72, 676, body, 'Region', true),
    t(250, 676, body, 'Revenue', true),
    t(400, 676, body, 'Growth', true),
    ...[
      ['North', '120', '5%'],
      ['South', '95', '-2%'],
      ['East', '143', '11%'],
      ['West', '88', '0%'],
    ].flatMap(([region, revenue, growth], i) => [
      t(72, 660 - i * 16, body, region!),
      t(250, 660 - i * 16, body, revenue!),
      t(400, 660 - i * 16, body, growth!),
    ]),
    `BT /F2 ${body} Tf 72 580 Td (Note:) Tj /F1 ${body} Tf ( figures are unaudited and may change before the annual report.) Tj ET`,
  ];
  const page3 = [
    furniture(3),
    t(72, 700, 16, 'Outlook', true),
    t(
      72,
      676,
      body,
      'Next year we expect steady growth in the north and a recovery in the south of the country.',
    ),
  ];
  return pdfOf(
    [{ ops: page1.join('\n') }, { ops: page2.join('\n') }, { ops: page3.join('\n') }],
    'Q3 Report',
  );
}

/** Text drawn by ffmpeg on a white page-sized image (150 dpi), as a scanner would give it. */
function scannedImage(lines: string[]): { width: number; height: number; gray: Buffer } {
  const width = 1276; // even: ffmpeg rounds odd widths down
  const height = 1650;
  const font = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
  const draw = lines
    .map(
      (line, i) =>
        `drawtext=fontfile=${font}:text='${line}':x=150:y=${200 + i * 90}:fontsize=44:fontcolor=black`,
    )
    .join(',');
  const gray = execFileSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `color=white:s=${width}x${height}`,
      '-vf',
      draw,
      '-frames:v',
      '1',
    ].concat(['-pix_fmt', 'gray', '-f', 'rawvideo', '-']),
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return { width, height, gray };
}

const has = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const ocrTools = ['pdftoppm', 'tesseract', 'ffmpeg'].filter((tool) => !has(tool));
/** OCR tests need the tools; under CI=true a missing one fails them, elsewhere they are skipped. */
const describeOcr = (name: string, body: () => void) =>
  ocrTools.length === 0 || process.env.CI === 'true'
    ? describe(name, body)
    : describe.skip(`${name} (skipped: no ${ocrTools.join(', ')}; CI=true makes this a failure)`, body);

const scratchLeft = () => readdirSync(os.tmpdir()).filter((f) => f.startsWith('unfurl-pdf-'));

describe('pdfToMarkdown on a text PDF', () => {
  let markdown: string;
  let out: Awaited<ReturnType<typeof pdfToMarkdown>>;

  beforeAll(async () => {
    out = await pdfToMarkdown(report(), { mode: 'auto', maxPages: 100 });
    markdown = out.markdown;
  });

  it('answers the page counts and the title', () => {
    expect(out).toMatchObject({ title: 'Q3 Report', pages: 3, pagesRead: 3, ocrPages: 0 });
  });

  it('makes headings of the larger sizes, largest first', () => {
    expect(markdown.startsWith('# Quarterly Report\n\n')).toBe(true);
    expect(markdown).toContain('\n## Highlights\n');
    expect(markdown).toContain('\n## Results by region\n');
    expect(markdown).toContain('\n## Outlook\n');
  });

  it('joins the lines of a paragraph, a hyphenated word made whole, and keeps paragraphs apart', () => {
    expect(markdown).toContain(
      'This quarter the company grew in every region it serves, and the new process brought improvements to every team that adopted it early in the year, well ahead of the plan we made.\n\nA second paragraph',
    );
  });

  it('reads bullet and numbered lists', () => {
    expect(markdown).toContain('- Revenue up 12 percent\n- Costs down 3 percent\n- Two new offices');
    expect(markdown).toContain('1. Hire engineers\n2. Open the Lisbon office');
  });

  it('makes a table of text that lines up in columns', () => {
    expect(markdown).toContain(
      [
        '| Region | Revenue | Growth |',
        '| --- | --- | --- |',
        '| North | 120 | 5% |',
        '| South | 95 | -2% |',
        '| East | 143 | 11% |',
        '| West | 88 | 0% |',
      ].join('\n'),
    );
  });

  it('marks bold runs', () => {
    expect(markdown).toContain('**Note:** figures are unaudited');
  });

  it('drops the running head and the page numbers', () => {
    expect(markdown).not.toContain('ACME Corp');
    expect(markdown.split('\n').filter((l) => /^\s*\d+\s*$/.test(l))).toEqual([]);
  });

  it('text mode reads the same text layer', async () => {
    const text = await pdfToMarkdown(report(), { mode: 'text', maxPages: 100 });
    expect(text.markdown).toBe(markdown);
  });
});

describe('pdfToMarkdown: pages, limits and refusals', () => {
  const long = (pages: number, lines = 30) =>
    pdfOf(
      Array.from({ length: pages }, (_, i) => ({
        ops: [
          t(72, 700, 18, `Chapter ${i + 1}`, true),
          ...Array.from({ length: lines }, (_, l) =>
            t(
              72,
              670 - l * 14,
              11,
              `Line ${l + 1} of chapter ${i + 1}, with enough words to be a line of body text.`,
            ),
          ),
          t(300, 30, 9, String(i + 1)),
        ].join('\n'),
      })),
      'Long',
    );

  it('reads only maxPages pages and says how many the file has', async () => {
    const out = await pdfToMarkdown(long(20), { mode: 'auto', maxPages: 5 });
    expect(out).toMatchObject({ pages: 20, pagesRead: 5, ocrPages: 0 });
    expect(out.markdown).toContain('# Chapter 5\n\nLine 1 of chapter 5, with');
    expect(out.markdown).not.toContain('Chapter 6');
  });

  it('reads a 20-page text PDF quickly', async () => {
    const pdf = long(20);
    await pdfToMarkdown(pdf, { mode: 'text', maxPages: 1 }); // pdf.js loaded
    const started = performance.now();
    const out = await pdfToMarkdown(pdf, { mode: 'text', maxPages: 100 });
    const ms = performance.now() - started;
    console.log(`20-page text PDF: ${Math.round(ms)} ms`);
    expect(out.pagesRead).toBe(20);
    expect(out.markdown.match(/^# Chapter \d+$/gm)).toHaveLength(20);
    expect(ms).toBeLessThan(5000);
  });

  it('cuts a 10,000-page file at maxPages', async () => {
    const pdf = long(10_000, 2);
    const started = performance.now();
    const out = await pdfToMarkdown(pdf, { mode: 'text', maxPages: 3 });
    expect(out).toMatchObject({ pages: 10_000, pagesRead: 3 });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('caps maxPages at 500', async () => {
    const out = await pdfToMarkdown(long(600, 2), { mode: 'text', maxPages: 100_000 });
    expect(out).toMatchObject({ pages: 600, pagesRead: 500 });
  });

  it('stops at its time limit: the pages read by then, or a refusal naming url', async () => {
    const err = await pdfToMarkdown(long(50), { mode: 'text', maxPages: 50, timeoutMs: 1 }).catch((e) => e);
    if (err instanceof Error) {
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'invalid_request', details: 'url' });
      expect(err.message).toMatch(/^Invalid parameter 'url': /);
    } else expect(err.pagesRead).toBeLessThan(50);
  });

  it('stops a page whose text never ends at the time limit', async () => {
    const ops = Array.from({ length: 200_000 }, (_, i) => t(72, 700 - (i % 600), 11, `run ${i}`)).join('\n');
    const pdf = pdfOf([{ ops: t(72, 700, 11, 'First page, readable.') }, { ops }], 'Hostile');
    const started = performance.now();
    const out = await pdfToMarkdown(pdf, { mode: 'text', maxPages: 10, timeoutMs: 1500 });
    expect(performance.now() - started).toBeLessThan(6000);
    expect(out.pages).toBe(2);
    expect(out.pagesRead).toBeLessThanOrEqual(2);
    expect(out.markdown).toContain('First page, readable.');
  });

  it('refuses bytes that are no PDF, naming url', async () => {
    const err = await pdfToMarkdown(new TextEncoder().encode('<html>not a pdf</html>'.repeat(50)), {
      mode: 'auto',
      maxPages: 10,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'invalid_request', details: 'url' });
    expect(err.message).toMatch(/^Invalid parameter 'url': /);
  });

  it('refuses a PDF cut short, naming url', async () => {
    const err = await pdfToMarkdown(report().subarray(0, 60), { mode: 'auto', maxPages: 10 }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'invalid_request', details: 'url' });
  });

  it('refuses a PDF locked with a password, saying so', async () => {
    // AES-256 (revision 5) Standard security handler whose password hashes we do not know.
    const encrypt = lockedTrailer();
    const pdf = pdfOf([{ ops: t(72, 700, 11, 'Secret.') }], 'Locked', encrypt);
    const err = await pdfToMarkdown(pdf, { mode: 'auto', maxPages: 10 }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'invalid_request', details: 'url' });
    expect(err.message).toMatch(/^Invalid parameter 'url': the PDF is encrypted/);
  });

  it("gives up when the caller's signal fires, with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    controller.abort(reason);
    const err = await pdfToMarkdown(report(), {
      mode: 'auto',
      maxPages: 10,
      signal: controller.signal,
    }).catch((e) => e);
    expect(err).toBe(reason);
  });
});

describeOcr('pdfToMarkdown with OCR (pdftoppm + tesseract)', () => {
  if (ocrTools.length > 0) {
    it('has its tools', () => {
      throw new Error(
        `CI=true and these are not installed: ${ocrTools.join(', ')} (apt-get install poppler-utils)`,
      );
    });
    return;
  }
  let mixed: Uint8Array;

  beforeAll(() => {
    const scan = scannedImage(['Scanned Invoice Number 4821', 'Payment is due within thirty days.']);
    mixed = pdfOf(
      [
        {
          ops: [
            t(72, 700, 18, 'Cover Letter', true),
            t(72, 670, 11, 'The scanned invoice follows on the next page.'),
            t(72, 656, 11, 'It was sent by post, and we scanned it for our records.'),
          ].join('\n'),
        },
        { ops: '', image: scan },
      ],
      'Mixed',
    );
  });

  it('auto: OCRs only the page without a text layer', async () => {
    const before = scratchLeft();
    const started = performance.now();
    const out = await pdfToMarkdown(mixed, { mode: 'auto', maxPages: 10 });
    console.log(`one OCR page (auto): ${Math.round(performance.now() - started)} ms`);
    expect(out).toMatchObject({ pages: 2, pagesRead: 2, ocrPages: 1, title: 'Mixed' });
    expect(out.markdown).toContain('# Cover Letter');
    expect(out.markdown).toContain('The scanned invoice follows on the next page.');
    expect(out.markdown).toContain('Scanned Invoice Number 4821');
    expect(out.markdown).toContain('Payment is due within thirty days.');
    expect(scratchLeft()).toEqual(before); // the rendered pages are gone
  });

  it('text: the text layer only, the scan left unread', async () => {
    const out = await pdfToMarkdown(mixed, { mode: 'text', maxPages: 10 });
    expect(out).toMatchObject({ pages: 2, pagesRead: 2, ocrPages: 0 });
    expect(out.markdown).toContain('Cover Letter');
    expect(out.markdown).not.toContain('4821');
  });

  it('ocr: every page rendered and read', async () => {
    const out = await pdfToMarkdown(mixed, { mode: 'ocr', maxPages: 10, lang: 'en-US' });
    expect(out).toMatchObject({ pages: 2, pagesRead: 2, ocrPages: 2 });
    expect(out.markdown).toContain('The scanned invoice follows on the next page.');
    expect(out.markdown).toContain('Invoice Number 4821');
  });

  it('renders a huge page at a bounded size', async () => {
    expect(renderDpi(612, 792)).toBe(150);
    expect(renderDpi(14_400, 14_400)).toBeLessThanOrEqual(15);
    const started = performance.now();
    const out = await pdfToMarkdown(pdfOf([{ ops: '', mediaBox: [14_400, 14_400] }]), {
      mode: 'ocr',
      maxPages: 1,
    });
    expect(out).toMatchObject({ pages: 1, pagesRead: 1, ocrPages: 1, markdown: '' });
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
