// The article-extraction benchmark's own metric (scrapinghub/article-extraction-benchmark,
// evaluate.py), so our figures compare with its published table: tokens are the `\w+` runs of the
// text (case kept), shingles are 4-token windows counted as a bag, each page's tp/fp/fn are
// normalised to sum to 1, and precision and recall are means over pages; F1 comes from those means.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import { parsePage } from '../../src/sources/web/page.js';
import { stripMarkdown } from './markdown-text.js';

/** One page's matched, extra and missing shingles, as shares of their sum. */
export interface ShingleCounts {
  tp: number;
  fp: number;
  fn: number;
}

/** Python's Unicode `\w`: letters, digits (any script) and the underscore. */
const WORD = /[\p{L}\p{N}_]+/gu;

function shingles(text: string, n: number): Map<string, number> {
  const tokens = text.match(WORD) ?? [];
  const bag = new Map<string, number>();
  // A text shorter than n tokens is one (short) shingle, as upstream; no tokens, no shingle.
  const windows = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < windows && tokens.length > 0; i++) {
    const key = tokens.slice(i, i + n).join('\u0000');
    bag.set(key, (bag.get(key) ?? 0) + 1);
  }
  return bag;
}

export function shingleCounts(expected: string, got: string, n = 4): ShingleCounts {
  const truth = shingles(expected, n);
  const pred = shingles(got, n);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, t] of truth) {
    const p = pred.get(key) ?? 0;
    tp += Math.min(t, p);
    fn += Math.max(0, t - p);
  }
  for (const [key, p] of pred) fp += Math.max(0, p - (truth.get(key) ?? 0));
  const sum = tp + fp + fn;
  return sum > 0 ? { tp: tp / sum, fp: fp / sum, fn: fn / sum } : { tp: 0, fp: 0, fn: 0 };
}

export function pagePrecision({ tp, fp, fn }: ShingleCounts): number {
  if (fp === 0 && fn === 0) return 1;
  return tp === 0 && fp === 0 ? 0 : tp / (tp + fp);
}

export function pageRecall({ tp, fp, fn }: ShingleCounts): number {
  if (fp === 0 && fn === 0) return 1;
  return tp === 0 && fn === 0 ? 0 : tp / (tp + fn);
}

/** Page F1 (for ranking pages; the benchmark's F1 is from the mean precision and recall). */
export function pageF1(c: ShingleCounts): number {
  const p = pagePrecision(c);
  const r = pageRecall(c);
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

export interface BenchmarkScore {
  precision: number;
  recall: number;
  f1: number;
}

/** Upstream's aggregate: precision over pages that predicted something, recall over pages that expected something. */
export function benchmarkScore(pages: ShingleCounts[]): BenchmarkScore {
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const precision = mean(pages.filter((c) => c.tp + c.fp > 0).map(pagePrecision));
  const recall = mean(pages.filter((c) => c.tp + c.fn > 0).map(pageRecall));
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

// ——— The benchmark's pages, split in two ———
// Rules are tuned on one half and judged on the other, so a gain that only fits the pages we looked at
// shows as a gap between the halves. The half follows from the page id alone: the first byte of the
// SHA-256 of "unfurl-extraction-split:<id>" below 128 is the tuning half, else the held-out half. The
// salt keeps the split independent of the ids' own order (which decided the benchmark's shared/holdout
// split) and of anything a page contains.

export type BenchmarkHalf = 'tuning' | 'held-out';

export function benchmarkHalf(id: string): BenchmarkHalf {
  const digest = createHash('sha256').update(`unfurl-extraction-split:${id}`).digest();
  return digest[0]! < 128 ? 'tuning' : 'held-out';
}

export interface BenchmarkPage {
  /** The folder name: the first 16 hex characters of the benchmark's page id. */
  id: string;
  url: string;
  html: string;
  /** The human-annotated article text. */
  articleBody: string;
  half: BenchmarkHalf;
}

/** The article-extraction benchmark's pages in `dir` (one folder each), in id order. */
export function loadBenchmarkPages(dir: string): BenchmarkPage[] {
  return fs
    .readdirSync(dir)
    .filter((id) => fs.existsSync(path.join(dir, id, 'expected.json')))
    .sort()
    .map((id) => {
      const html = zlib.gunzipSync(fs.readFileSync(path.join(dir, id, 'source.html.gz'))).toString('utf8');
      const expected = JSON.parse(fs.readFileSync(path.join(dir, id, 'expected.json'), 'utf8')) as {
        url: string;
        articleBody: string;
      };
      return { id, url: expected.url, html, articleBody: expected.articleBody, half: benchmarkHalf(id) };
    });
}

/** The mean and the median of per-page F1 (the benchmark's own F1 is `benchmarkScore`'s). */
export function pageF1Spread(pages: ShingleCounts[]): { mean: number; median: number } {
  const f1s = pages.map(pageF1).sort((a, b) => a - b);
  if (f1s.length === 0) return { mean: 0, median: 0 };
  const mid = f1s.length >> 1;
  const median = f1s.length % 2 ? f1s[mid]! : (f1s[mid - 1]! + f1s[mid]!) / 2;
  return { mean: f1s.reduce((a, b) => a + b, 0) / f1s.length, median };
}

// ——— The two extractors, as the benchmark scores them ———

/** Readability.js as published: @mozilla/readability on jsdom, its textContent. */
export function readabilityJsText(html: string, url: string): string {
  // Pages' own stylesheet and script errors are not ours to print.
  const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
  try {
    return new Readability(dom.window.document).parse()?.textContent ?? '';
  } finally {
    dom.window.close();
  }
}

/**
 * Our main content as the text it reads as, without the title heading it leads with: the benchmark
 * annotates the body alone (a headline is a field of its own in its schema, not carried by this
 * split), and Readability.js's textContent has no title either, so both are scored on the body.
 */
export function ourArticleText(html: string, url: string): string {
  const markdown = parsePage(html, url, { noLinks: true }).content;
  return stripMarkdown(markdown.replace(/^# [^\n]*\n*/, ''));
}
