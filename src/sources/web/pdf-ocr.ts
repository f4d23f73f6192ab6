// A PDF page without a text layer (a scan) read by OCR: poppler's `pdftoppm` renders the page to a
// grayscale image, the `tesseract` CLI reads it (through the video OCR's runner, bounded in time and
// cancelled with the caller's signal), and the words come back as layout runs in points, so that the
// same layout rules (headings, paragraphs, lists, tables) apply to scanned pages as to text ones.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { toolPaths } from '../../config.js';
import { AppError } from '../../errors.js';
import { runTool } from '../../media/ffmpeg.js';
import { recogniseBatch, tesseractPath } from '../../media/ocr/tesseract.js';
import type { LayoutItem } from './pdf-layout.js';

export const pdftoppmPath = () => toolPaths().pdftoppm;

/** Pixels per inch a page is rendered at (text of body size comes out about 25 pixels high). */
export const OCR_DPI = 150;
/** The longest side of a rendered page, in pixels: a huge page is rendered at a lower resolution. */
export const MAX_RENDER_SIDE = 3000;

/** The resolution to render a page of this size (points) at. */
export function renderDpi(width: number, height: number): number {
  const side = Math.max(width, height, 1);
  return Math.max(1, Math.min(OCR_DPI, Math.floor((MAX_RENDER_SIDE * 72) / side)));
}

export interface PageOcrOptions {
  /** Tesseract's language(s), already known to be installed. */
  lang: string;
  signal?: AbortSignal;
  /** For each tool run. */
  timeoutMs: number;
}

/**
 * Renders page `page` (from 1) of the PDF at `file` into `dir` and OCRs it. Answers its runs, in
 * points from the page's top-left; the image is removed afterwards.
 */
export async function ocrPage(
  file: string,
  page: number,
  size: { width: number; height: number },
  dir: string,
  options: PageOcrOptions,
): Promise<LayoutItem[]> {
  const dpi = renderDpi(size.width, size.height);
  const prefix = path.join(dir, `page-${page}`);
  const image = `${prefix}.pgm`;
  try {
    await runTool(
      pdftoppmPath(),
      ['-r', String(dpi), '-f', String(page), '-l', String(page), '-gray', '-singlefile', file, prefix],
      { signal: options.signal, timeoutMs: options.timeoutMs },
    ).catch((err: unknown) => {
      if (err instanceof AppError && err.message.includes('is not installed'))
        throw new AppError(
          'internal_error',
          `${pdftoppmPath()} is not installed (apt-get install poppler-utils)`,
        );
      throw err;
    });
    const [lines = []] = await recogniseBatch([image], `${prefix}.txt`, {
      lang: options.lang,
      // Automatic page segmentation: a document page is columns of text, not captions on a picture.
      psm: 3,
      minWordConf: 40,
      minLineConf: 55,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
    const k = 72 / dpi;
    // Rows: OCR answers a table's cells as lines of their own, side by side.
    const sorted = [...lines].sort((a, b) => a.top + a.height - (b.top + b.height));
    const rows: (typeof lines)[] = [];
    for (const line of sorted) {
      const row = rows.at(-1);
      const base = row?.[0];
      if (row && base && Math.abs(line.top + line.height - (base.top + base.height)) < 0.5 * base.height)
        row.push(line);
      else rows.push([line]);
    }
    const items: LayoutItem[] = [];
    for (const row of rows) {
      row.sort((a, b) => a.left - b.left);
      const height = Math.max(...row.map((l) => l.height));
      const baseline = Math.max(...row.map((l) => l.top + l.height));
      for (const line of row) {
        for (const word of line.words ?? [line]) {
          items.push({
            text: word.text,
            x: word.left * k,
            y: baseline * k,
            width: word.width * k,
            size: height * k,
            bold: false,
          });
        }
      }
    }
    return items;
  } finally {
    await rm(image, { force: true });
    await rm(`${prefix}.txt`, { force: true });
  }
}

const TESSERACT_LANGS: Record<string, string> = {
  af: 'afr',
  ar: 'ara',
  bg: 'bul',
  bn: 'ben',
  ca: 'cat',
  cs: 'ces',
  da: 'dan',
  de: 'deu',
  el: 'ell',
  en: 'eng',
  es: 'spa',
  et: 'est',
  fa: 'fas',
  fi: 'fin',
  fr: 'fra',
  ga: 'gle',
  he: 'heb',
  hi: 'hin',
  hr: 'hrv',
  hu: 'hun',
  id: 'ind',
  is: 'isl',
  it: 'ita',
  ja: 'jpn',
  ko: 'kor',
  lt: 'lit',
  lv: 'lav',
  ms: 'msa',
  nb: 'nor',
  nl: 'nld',
  nn: 'nor',
  no: 'nor',
  pl: 'pol',
  pt: 'por',
  ro: 'ron',
  ru: 'rus',
  sk: 'slk',
  sl: 'slv',
  sr: 'srp',
  sv: 'swe',
  th: 'tha',
  tr: 'tur',
  uk: 'ukr',
  vi: 'vie',
  zh: 'chi_sim',
};

let installed: Promise<Set<string>> | null = null;

/** The languages tesseract has models for here (asked once). */
function installedLangs(): Promise<Set<string>> {
  installed ??= runTool(tesseractPath(), ['--list-langs'], { timeoutMs: 15_000, maxStdoutBytes: 1 << 20 })
    .then(
      ({ stdout }) =>
        new Set(
          stdout
            .toString('utf8')
            .split('\n')
            .slice(1)
            .map((l) => l.trim())
            .filter(Boolean),
        ),
    )
    .catch((err: unknown) => {
      installed = null;
      throw err;
    });
  return installed;
}

/**
 * Tesseract's language for a caller's BCP 47 tag (`pt-BR` → `por`, `zh-TW` → `chi_tra`), English
 * added as a second language; English alone when the tag is absent or its model is not installed.
 */
export async function tesseractLang(tag: string | undefined): Promise<string> {
  const langs = await installedLangs();
  const lower = (tag ?? '').toLowerCase();
  const primary = lower.split(/[-_]/)[0] ?? '';
  const code = /^zh-(tw|hk|mo|hant)/.test(lower) ? 'chi_tra' : TESSERACT_LANGS[primary];
  if (!code || code === 'eng' || !langs.has(code)) return 'eng';
  return langs.has('eng') ? `${code}+eng` : code;
}
