// The native `tesseract` CLI, run on batches of images: loading the model costs about as much as
// reading one frame, so each process reads a list of frames (one model load per batch). TSV output
// gives each word its box and confidence.

import { writeFile } from 'node:fs/promises';
import { toolPaths } from '../../config.js';
import { runTool } from '../ffmpeg.js';
import { normaliseText } from './text-similarity.js';

export const tesseractPath = () => toolPaths().tesseract;

export interface OcrLine {
  text: string;
  /** Mean confidence (0–100) of the words kept. */
  conf: number;
  left: number;
  top: number;
  width: number;
  height: number;
  /** The words kept, with their own boxes (absent on lines built by hand). */
  words?: OcrWord[];
}

export interface OcrWord {
  text: string;
  conf: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface TsvOptions {
  /** Words below this confidence are dropped (default 60). */
  minWordConf?: number;
  /** Lines whose kept words average below this are dropped (default 75). */
  minLineConf?: number;
}

type Word = OcrWord;

const ALNUM = /[\p{L}\p{N}]/gu;
const SHORT_LINE_CONF = 90;
const SHORT_WORD_CONF = 85;

const alnumOf = (text: string) => text.match(ALNUM)?.length ?? 0;

/** Mostly letters and digits: not punctuation or a lone stray mark. */
const wordLike = (w: Word) => {
  const alnum = alnumOf(w.text);
  return alnum >= 1 && alnum * 2 >= [...w.text].length;
};

/** A short word that covers this share of its width of a long word is a mark on that word's edge. */
const SHORT_MAX_OVERLAP = 0.3;
/** A short word this close to a long word of its line (in the short word's heights) belongs to it. */
const SHORT_NEAR = 1.5;

/**
 * The words of one line worth keeping: confident enough and word-like. One- and two-letter "words"
 * are mostly texture when alone, so they need a sure reading (tesseract reads a lone digit at 60–70
 * even when it is right) unless they sit beside a long word of the line at its height: the "7" that
 * ends "Serve with fresh berries 7". A short word that overlaps a long word is a mark on its edge
 * ("with v warm"), however sure.
 */
function keptWords(all: readonly Word[], minConf: number): Word[] {
  const words = all.filter((w) => w.conf >= minConf && wordLike(w));
  const long = words.filter((w) => alnumOf(w.text) >= 3);
  return words.filter((w) => {
    if (alnumOf(w.text) >= 3) return true;
    if (long.length === 0) return w.conf >= SHORT_WORD_CONF;
    const covers = (l: Word) =>
      Math.min(w.left + w.width, l.left + l.width) - Math.max(w.left, l.left) > SHORT_MAX_OVERLAP * w.width;
    if (long.some(covers)) return false;
    if (w.conf >= SHORT_WORD_CONF) return true;
    const near = (l: Word) =>
      Math.max(l.left - (w.left + w.width), w.left - (l.left + l.width)) <= SHORT_NEAR * w.height &&
      Math.min(w.top + w.height, l.top + l.height) - Math.max(w.top, l.top) >= 0.5 * w.height;
    return long.some(near);
  });
}

/**
 * Marks an outline or a box edge leaves on a word's ends ("‘next", "|Hello") are dropped when the
 * word itself is clear; real quotes read as ' and " are kept.
 */
function stripStrays(word: string): string {
  const stripped = word.replace(/^[‘“|`_~]+/u, '').replace(/[|`_~]+$/u, '');
  return (stripped.match(ALNUM)?.length ?? 0) >= 2 ? stripped : word;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/**
 * Parses tesseract's TSV into lines per page (page numbers as tesseract counts them, from 1). Noise
 * that reads like text out of textures is filtered: low-confidence words, and lines that end up
 * without any word of two or more letters or digits.
 */
export function parseTsv(tsv: string, options: TsvOptions = {}): Map<number, OcrLine[]> {
  const minWordConf = options.minWordConf ?? 60;
  const minLineConf = options.minLineConf ?? 75;
  const lines = new Map<string, { page: number; words: Word[] }>();
  for (const row of tsv.split('\n')) {
    const cols = row.split('\t');
    if (cols.length < 12 || cols[0] !== '5') continue;
    const text = stripStrays(normaliseText(cols.slice(11).join('\t')));
    if (!text) continue;
    const [page, block, par, line] = cols.slice(1, 5);
    const key = `${page}/${block}/${par}/${line}`;
    const entry = lines.get(key) ?? { page: Number(page), words: [] };
    entry.words.push({
      text,
      conf: Number(cols[10]),
      left: Number(cols[6]),
      top: Number(cols[7]),
      width: Number(cols[8]),
      height: Number(cols[9]),
    });
    lines.set(key, entry);
  }
  const pages = new Map<number, OcrLine[]>();
  for (const { page, words: all } of lines.values()) {
    const words = keptWords(all, minWordConf);
    if (words.length === 0) continue;
    const conf = words.reduce((s, w) => s + w.conf, 0) / words.length;
    if (conf < minLineConf) continue;
    if (!words.some((w) => (w.text.match(ALNUM)?.length ?? 0) >= 2)) continue;
    // Textures read as short strings ("28", "ae") now and then: short lines must be read surely.
    const alnum = words.reduce((n, w) => n + (w.text.match(ALNUM)?.length ?? 0), 0);
    if (alnum < 4 && conf < SHORT_LINE_CONF) continue;
    // Vertical extent from the median word: one word box swollen by a smudge beside it should not
    // make the line overlap its neighbours.
    const left = Math.min(...words.map((w) => w.left));
    const right = Math.max(...words.map((w) => w.left + w.width));
    const top = median(words.map((w) => w.top));
    const bottom = median(words.map((w) => w.top + w.height));
    const line: OcrLine = {
      text: words.map((w) => w.text).join(' '),
      conf,
      left,
      top,
      width: right - left,
      height: bottom - top,
      words,
    };
    pages.set(page, [...(pages.get(page) ?? []), line]);
  }
  for (const list of pages.values()) list.sort((a, b) => a.top - b.top || a.left - b.left);
  return pages;
}

export interface TesseractOptions extends TsvOptions {
  /** Tesseract language(s), e.g. `eng` or `eng+deu` (default eng). */
  lang?: string;
  /** Page segmentation mode; 11 (sparse text) finds captions, logos and tickers anywhere (default 11). */
  psm?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * OCRs `images` (files tesseract reads: PGM, PNG, JPEG) in one process and answers their lines, in
 * the same order. `listFile` is where the list of images is written (a scratch path).
 */
export async function recogniseBatch(
  images: readonly string[],
  listFile: string,
  options: TesseractOptions = {},
): Promise<OcrLine[][]> {
  if (images.length === 0) return [];
  await writeFile(listFile, `${images.join('\n')}\n`);
  const { stdout } = await runTool(
    tesseractPath(),
    [listFile, 'stdout', '-l', options.lang ?? 'eng', '--psm', String(options.psm ?? 11), 'tsv'],
    {
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? 60_000 + images.length * 10_000,
      maxStdoutBytes: 8 * 1024 * 1024 + images.length * 256 * 1024,
      // One thread per process: several processes run side by side, which uses cores better.
      env: { OMP_THREAD_LIMIT: '1' },
    },
  );
  const pages = parseTsv(stdout.toString('utf8'), options);
  return images.map((_, i) => pages.get(i + 1) ?? []);
}
