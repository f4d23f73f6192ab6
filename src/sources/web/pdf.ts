// PDF → Markdown (and plain text) with pdf.js (the legacy build, meant for Node). The text layer is
// read with its layout (positions, sizes, fonts) and turned into Markdown by pdf-layout.ts; pages
// without a text layer (scans) are rendered and read by OCR (pdf-ocr.ts). pdf.js itself renders
// nothing, loads no fonts into anything, fetches nothing and starts no worker thread (in Node it runs
// its "worker" in this thread, loading it from the path set below).

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { abortable } from '../../abortable.js';
import { AppError, invalid } from '../../errors.js';
import { MediaToolError } from '../../media/ffmpeg.js';
import { type LayoutItem, type LayoutPage, layoutToMarkdown } from './pdf-layout.js';
import { ocrPage, tesseractLang } from './pdf-ocr.js';

export interface PdfText {
  /** Lines as the PDF lays them out, a blank line between pages. */
  text: string;
  title: string | null;
  /** Pages in the document (not only those read). */
  pages: number;
  /** True when pages beyond maxPages were left out. */
  truncated: boolean;
}

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

const require = createRequire(import.meta.url);
const pdfjsDir = path.dirname(require.resolve('pdfjs-dist/package.json'));
let loading: Promise<PdfJs> | null = null;

/** pdf.js is large: loaded on the first PDF, not when the service starts. */
function loadPdfJs(): Promise<PdfJs> {
  loading ??= import('pdfjs-dist/legacy/build/pdf.mjs').then((pdfjs) => {
    // An explicit file URL, so the in-thread worker is found however this module is loaded or bundled.
    pdfjs.GlobalWorkerOptions.workerSrc = pathToFileURL(
      path.join(pdfjsDir, 'legacy/build/pdf.worker.mjs'),
    ).href;
    return pdfjs;
  });
  return loading;
}

function open(pdfjs: PdfJs, data: Uint8Array) {
  return pdfjs.getDocument({
    // A copy: pdf.js transfers (detaches) the buffer it is given, and it refuses Node Buffers.
    data: new Uint8Array(data),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    // Text of CJK documents whose fonts use predefined CMaps needs these (read from disk).
    cMapUrl: `${pdfjsDir}/cmaps/`,
    cMapPacked: true,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
}

export async function pdfToText(data: Uint8Array, opts: { maxPages?: number } = {}): Promise<PdfText> {
  const pdfjs = await loadPdfJs();
  const task = open(pdfjs, data);
  try {
    const doc = await task.promise;
    const pages = doc.numPages;
    const read = Math.min(pages, Math.max(0, opts.maxPages ?? 500));
    const texts: string[] = [];
    for (let n = 1; n <= read; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue; // marked-content boundaries carry no text
        text += item.str;
        if (item.hasEOL) text += '\n';
      }
      page.cleanup();
      texts.push(tidy(text));
    }
    return {
      text: texts.filter(Boolean).join('\n\n'),
      title: await titleOf(doc),
      pages,
      truncated: read < pages,
    };
  } catch (err) {
    throw new AppError(
      'invalid_request',
      `The URL points to a PDF that could not be read: ${describe(err)}`,
      'url',
    );
  } finally {
    await task.destroy();
  }
}

type PdfDoc = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

/** The document's own title: the Info dictionary's, else the XMP metadata's. */
async function titleOf(doc: PdfDoc): Promise<string | null> {
  const { info, metadata } = await doc.getMetadata().catch(() => ({ info: null, metadata: null }));
  const fromInfo = (info as { Title?: unknown } | null)?.Title;
  const title = typeof fromInfo === 'string' && fromInfo.trim() ? fromInfo : metadata?.get('dc:title');
  return typeof title === 'string' && title.trim() ? title.trim() : null;
}

/** Trailing spaces off each line, NULs (glyphs without a Unicode mapping) out, runs of blank lines cut. */
function tidy(text: string): string {
  return text
    .replace(/\0/g, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function describe(err: unknown): string {
  const name = (err as { name?: string }).name;
  if (name === 'PasswordException') return 'it is protected by a password';
  if (name === 'InvalidPDFException') return 'it is not a valid PDF';
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------------------------------------------
// PDF → Markdown

export type PdfMode = 'auto' | 'text' | 'ocr';

export interface PdfMarkdownOptions {
  /** `text`: the text layer only; `ocr`: every page rendered and OCRed; `auto` (default): OCR for the pages without a text layer. */
  mode?: PdfMode;
  /** Only the first this many pages are read (1 to PDF_MAX_PAGES; default PDF_DEFAULT_PAGES). */
  maxPages?: number;
  signal?: AbortSignal;
  /** The document's language (BCP 47), for OCR; English when absent or without a model here. */
  lang?: string;
  /** How long the whole read may take (default 120 s): pages not read by then are left out. */
  timeoutMs?: number;
  /** OCR processes run side by side (default: up to 4, one per core). */
  ocrConcurrency?: number;
}

export interface PdfMarkdown {
  markdown: string;
  title: string | null;
  /** Pages in the file. */
  pages: number;
  /** Pages read, from the first: what the Markdown holds (at most maxPages). */
  pagesRead: number;
  /** Of the pages read, those read by OCR. */
  ocrPages: number;
}

export const PDF_MAX_PAGES = 500;
export const PDF_DEFAULT_PAGES = 100;
const DEFAULT_TIMEOUT_MS = 120_000;
/** One pdftoppm or tesseract run at most. */
const TOOL_TIMEOUT_MS = 60_000;
/** A page with fewer letters and digits than this in its text layer has none worth the name (auto: OCR). */
const MIN_TEXT_CHARS = 16;
/** Runs of text read from a document at most (the layout's work grows with them). */
const MAX_RUNS = 250_000;
const MONO_FONT = /mono|courier|cmtt|consol|menlo|inconsolata|typewriter|lucidaconsole|fixedsys/i;
const BOLD_FONT = /bold|black|heavy|semibold|demibold|extrabold|ultrabold/i;

/** The time limit ran out (the deadline's abort reason). */
class TimeUp extends Error {}

/**
 * A PDF as Markdown. Pages are read in order up to `maxPages` and within the time limit; the answer
 * says how many the file has, how many were read and how many of those by OCR. Bytes that are no PDF,
 * and a PDF locked with a password, are refused as `invalid_request` naming `url`.
 */
export async function pdfToMarkdown(
  data: Uint8Array,
  options: PdfMarkdownOptions = {},
): Promise<PdfMarkdown> {
  const mode: PdfMode = options.mode ?? 'auto';
  const maxPages = Math.min(
    PDF_MAX_PAGES,
    Math.max(1, Math.floor(Number.isFinite(options.maxPages) ? options.maxPages! : PDF_DEFAULT_PAGES)),
  );
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  options.signal?.throwIfAborted();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new TimeUp(`over ${timeoutMs} ms`)), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  const started = Date.now();
  const pdfjs = await loadPdfJs();
  const task = open(pdfjs, data);
  try {
    let doc: PdfDoc;
    try {
      doc = await abortable(task.promise, signal);
    } catch (err) {
      options.signal?.throwIfAborted();
      if (err instanceof TimeUp) throw invalid('url', `the PDF could not be opened within ${timeoutMs} ms`);
      throw unreadable(err);
    }
    const pages = doc.numPages;
    const toRead = Math.min(pages, maxPages);
    const read = await readPages(doc, pdfjs, toRead, mode, signal, started + timeoutMs);
    const ocr = read.filter((p) => p?.ocr).map((p) => p!.number);
    if (ocr.length > 0 && !signal.aborted) {
      const lang = await tesseractLang(options.lang);
      await ocrPages(data, read, ocr, {
        lang,
        signal,
        deadline: started + timeoutMs,
        concurrency: options.ocrConcurrency ?? Math.max(1, Math.min(4, os.availableParallelism())),
      });
    }
    options.signal?.throwIfAborted();
    // The pages read: from the first, up to the first left unread (time ran out there).
    let pagesRead = 0;
    while (pagesRead < toRead && read[pagesRead]?.done) pagesRead++;
    if (pagesRead === 0 && toRead > 0)
      throw invalid('url', `not one page of the PDF could be read within ${timeoutMs} ms`);
    const kept = read.slice(0, pagesRead) as PageRead[];
    return {
      markdown: layoutToMarkdown(kept.map((p) => p.layout)),
      title: await abortable(titleOf(doc), signal).catch(() => null),
      pages,
      pagesRead,
      ocrPages: kept.filter((p) => p.ocr).length,
    };
  } finally {
    clearTimeout(timer);
    await task.destroy();
  }
}

interface PageRead {
  number: number;
  layout: LayoutPage;
  /** Read (or to be read) by OCR. */
  ocr: boolean;
  done: boolean;
}

/** The text layer of pages 1..count; the pages that need OCR marked (not done yet). Stops when the signal fires. */
async function readPages(
  doc: PdfDoc,
  pdfjs: PdfJs,
  count: number,
  mode: PdfMode,
  signal: AbortSignal,
  deadline: number,
): Promise<(PageRead | null)[]> {
  const read: (PageRead | null)[] = [];
  const fonts = new Map<string, { bold: boolean; mono: boolean }>();
  // pdf.js parses in this thread without yielding to timers: the clock is read between its chunks.
  const over = () => signal.aborted || Date.now() >= deadline;
  let budget = MAX_RUNS;
  for (let number = 1; number <= count && !over(); number++) {
    try {
      const page = await abortable(doc.getPage(number), signal);
      const viewport = page.getViewport({ scale: 1 });
      const layout: LayoutPage = { width: viewport.width, height: viewport.height, items: [] };
      if (mode === 'ocr') {
        read.push({ number, layout, ocr: true, done: false });
        continue;
      }
      const runs = await textRuns(page, signal, over, budget);
      if (!runs) break; // out of time, or more text than any document has: the pages before are the answer
      budget -= runs.length;
      const chars = runs.reduce((n, item) => n + ('str' in item ? alnum(item.str) : 0), 0);
      if (mode === 'auto' && chars < MIN_TEXT_CHARS) {
        page.cleanup();
        read.push({ number, layout, ocr: true, done: false });
        continue;
      }
      // Font names (for bold) are known once the page's fonts are loaded: only for fonts not seen yet.
      const unknown = runs.some((item) => 'fontName' in item && !fonts.has(item.fontName));
      if (unknown && !over()) await abortable(page.getOperatorList(), signal);
      const items: LayoutItem[] = [];
      for (const item of runs) {
        if (!('str' in item)) continue;
        let font = fonts.get(item.fontName);
        if (font === undefined) {
          const name = fontNameOf(page, item.fontName);
          font = { bold: BOLD_FONT.test(name), mono: MONO_FONT.test(name) };
          fonts.set(item.fontName, font);
        }
        const [a, b, c, d, x, y] = pdfjs.Util.transform(viewport.transform, item.transform) as number[];
        // Horizontal text only: a line set sideways in a margin is not part of the text's flow.
        if (!(a! > 0) || Math.abs(b!) > 0.1 * a!) continue;
        const size = Math.hypot(c!, d!);
        items.push({
          text: item.str,
          x: x!,
          y: y!,
          width: item.width,
          size,
          bold: font.bold,
          mono: font.mono,
        });
      }
      layout.items = items;
      page.cleanup();
      read.push({ number, layout, ocr: false, done: true });
    } catch (err) {
      if (signal.aborted) break;
      // A page pdf.js cannot read (a broken content stream): in auto and ocr mode, its image may be.
      read.push({
        number,
        layout: { width: 612, height: 792, items: [] },
        ocr: mode !== 'text',
        done: mode === 'text',
      });
      void err;
    }
  }
  return read;
}

type PdfPage = Awaited<ReturnType<PdfDoc['getPage']>>;
type TextRun = Extract<Awaited<ReturnType<PdfPage['getTextContent']>>['items'][number], { str: string }>;

/**
 * A page's runs of text, read chunk by chunk (pdf.js hands them over a few at a time), so that the
 * clock is checked as it goes; null when time ran out or the runs passed `budget`.
 */
async function textRuns(
  page: PdfPage,
  signal: AbortSignal,
  over: () => boolean,
  budget: number,
): Promise<TextRun[] | null> {
  const reader = page.streamTextContent().getReader();
  const runs: TextRun[] = [];
  try {
    for (;;) {
      if (over() || runs.length > budget) {
        await reader.cancel(new TimeUp('time or text limit')).catch(() => {});
        return null;
      }
      const { value, done } = await abortable(reader.read(), signal);
      if (done) return runs;
      for (const item of value.items) if ('str' in item && item.str.trim()) runs.push(item);
    }
  } finally {
    reader.releaseLock();
  }
}

function fontNameOf(
  page: { commonObjs: { has(id: string): boolean; get(id: string): unknown } },
  id: string,
) {
  try {
    if (!page.commonObjs.has(id)) return '';
    const name = (page.commonObjs.get(id) as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? name : '';
  } catch {
    return '';
  }
}

/** Renders and OCRs the pages `numbers` (their entries in `read` are filled in). */
async function ocrPages(
  data: Uint8Array,
  read: (PageRead | null)[],
  numbers: number[],
  options: { lang: string; signal: AbortSignal; deadline: number; concurrency: number },
): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'unfurl-pdf-'));
  try {
    const file = path.join(dir, 'in.pdf');
    await writeFile(file, data);
    const queue = [...numbers];
    const worker = async () => {
      for (let number = queue.shift(); number !== undefined; number = queue.shift()) {
        if (options.signal.aborted) return;
        const entry = read[number - 1]!;
        try {
          entry.layout.items = await ocrPage(file, number, entry.layout, dir, {
            lang: options.lang,
            signal: options.signal,
            timeoutMs: Math.max(1000, Math.min(TOOL_TIMEOUT_MS, options.deadline - Date.now())),
          });
          entry.done = true;
        } catch (err) {
          if (options.signal.aborted) return;
          // A page poppler cannot render, or one the tools gave up on: read as empty. A missing tool is
          // no fault of the PDF's.
          if (err instanceof MediaToolError || (err instanceof AppError && err.code !== 'internal_error')) {
            entry.done = true;
            continue;
          }
          if (err instanceof AppError && /took longer than/.test(err.message)) {
            entry.done = true;
            continue;
          }
          throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, numbers.length) }, worker));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const alnum = (text: string) => text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;

function unreadable(err: unknown): AppError {
  const name = (err as { name?: string } | null)?.name;
  if (name === 'PasswordException')
    return invalid('url', 'the PDF is encrypted: it needs a password to be opened, and none is known');
  if (name === 'InvalidPDFException') return invalid('url', 'the document is not a valid PDF');
  return invalid('url', 'the PDF is damaged and could not be read');
}
