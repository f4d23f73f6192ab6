// The article-extraction benchmark's own metric (scrapinghub/article-extraction-benchmark,
// evaluate.py), so our figures compare with its published table: tokens are the `\w+` runs of the
// text (case kept), shingles are 4-token windows counted as a bag, each page's tp/fp/fn are
// normalised to sum to 1, and precision and recall are means over pages; F1 comes from those means.

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
