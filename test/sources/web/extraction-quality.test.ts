// Main-content quality on real pages with human-annotated article text (Zyte's
// article-extraction-benchmark, shared split), scored with the benchmark's own shingle metric, and
// Readability.js (@mozilla/readability on jsdom, its textContent) scored on the same pages in the
// same run, so the two figures compare directly (upstream publishes Readability.js at 0.947 F1 and
// trafilatura at 0.958 on all 181 pages). The pages are split in two by a hash of their id
// (benchmarkHalf in test/support/shingles.ts): extraction rules are chosen on the tuning half only, so
// the held-out half's figures say whether they hold on pages nobody tuned on; both halves are checked.
// `npm run bench -- extraction` prints the same figures with per-page means and medians.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type BenchmarkHalf,
  type BenchmarkScore,
  benchmarkScore,
  loadBenchmarkPages,
  ourArticleText,
  pageF1,
  pagePrecision,
  pageRecall,
  readabilityJsText,
  type ShingleCounts,
  shingleCounts,
} from '../../support/shingles.js';

const corpus = path.resolve(
  import.meta.dirname,
  '../../../../shared/fixtures/web/article-extraction-benchmark',
);

/**
 * What each half must reach: our F1, and our lead over Readability.js in the same run. Set a little
 * under what the build scores (tuning 0.9786 vs 0.9513, held-out 0.9745 vs 0.9560), so a rule that
 * costs either half fails here; the held-out lead is the goal set for it (issue 39: +0.015).
 */
const FLOOR: Record<BenchmarkHalf, { f1: number; lead: number }> = {
  tuning: { f1: 0.97, lead: 0.02 },
  'held-out': { f1: 0.965, lead: 0.015 },
};

const fmt = (s: BenchmarkScore) =>
  `precision ${s.precision.toFixed(4)}  recall ${s.recall.toFixed(4)}  F1 ${s.f1.toFixed(4)}`;
const pr = (c: ShingleCounts) => `P ${pagePrecision(c).toFixed(2)} R ${pageRecall(c).toFixed(2)}`;

interface Row {
  id: string;
  half: BenchmarkHalf;
  ours: ShingleCounts;
  theirs: ShingleCounts;
}

/** Both halves' figures; pages are listed from the tuning half only (the other is not for tuning). */
function report(rows: Row[]): void {
  const tuning = rows.filter((r) => r.half === 'tuning');
  const losers = tuning
    .map((r) => ({ ...r, gap: pageF1(r.ours) - pageF1(r.theirs) }))
    .filter((r) => r.gap < -0.01)
    .sort((a, b) => a.gap - b.gap);
  const worst = [...tuning].sort((a, b) => pageF1(a.ours) - pageF1(b.ours)).slice(0, 8);
  const halves = (['tuning', 'held-out'] as const).flatMap((half) => {
    const of = rows.filter((r) => r.half === half);
    return [
      `${half} half, ${of.length} pages:`,
      `  ours (parsePage)        ${fmt(benchmarkScore(of.map((r) => r.ours)))}`,
      `  Readability.js (jsdom)  ${fmt(benchmarkScore(of.map((r) => r.theirs)))}`,
    ];
  });
  console.log(
    [
      `article-extraction-benchmark, ${rows.length} pages, 4-token shingles:`,
      ...halves,
      `tuning pages where Readability.js beats us (F1 gap): ${losers.length}`,
      ...losers.map(
        (r) => `  ${r.id} ${r.gap.toFixed(3)}  ours ${pr(r.ours)}  Readability.js ${pr(r.theirs)}`,
      ),
      'our worst tuning pages:',
      ...worst.map((r) => `  ${r.id} F1 ${pageF1(r.ours).toFixed(3)}  ${pr(r.ours)}`),
    ].join('\n'),
  );
}

describe('main-content extraction on the article-extraction benchmark', () => {
  it('beats Readability.js on the same pages, on the tuning half and on the held-out half', async () => {
    const pages = loadBenchmarkPages(corpus);
    expect(pages.length).toBeGreaterThan(100);
    const rows: Row[] = [];
    for (const page of pages) {
      // A turn of the event loop per page keeps vitest's worker answering its runner.
      await new Promise((resolve) => setImmediate(resolve));
      rows.push({
        id: page.id,
        half: page.half,
        ours: shingleCounts(page.articleBody, ourArticleText(page.html, page.url)),
        theirs: shingleCounts(page.articleBody, readabilityJsText(page.html, page.url)),
      });
    }
    report(rows);
    for (const half of ['tuning', 'held-out'] as const) {
      const of = rows.filter((r) => r.half === half);
      expect(of.length, `${half} half`).toBeGreaterThan(40);
      const ours = benchmarkScore(of.map((r) => r.ours)).f1;
      const theirs = benchmarkScore(of.map((r) => r.theirs)).f1;
      expect(ours, `${half} half: our F1`).toBeGreaterThanOrEqual(FLOOR[half].f1);
      expect(ours - theirs, `${half} half: our F1 over Readability.js's`).toBeGreaterThanOrEqual(
        FLOOR[half].lead,
      );
    }
  }, 300_000);
});
