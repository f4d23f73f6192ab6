// Main-content quality, not speed: token F1 (the article-extraction benchmark's 4-token shingle
// metric) of parsePage's content against the human-annotated article text of Zyte's benchmark pages
// (shared split), beside plain Readability.js (@mozilla/readability on jsdom, its textContent) scored
// on the same pages in the same run. The pages are split in two by a hash of their id
// (test/support/shingles.ts, benchmarkHalf): rules are chosen on the tuning half, and the held-out half
// tells whether they generalise. Per half: the benchmark's F1 (from mean precision and recall), ours ÷
// Readability.js's, and the mean and median of per-page F1. With BENCH_PAGES=1, the tuning half's pages
// where the two differ most are listed (the held-out half's pages are never listed: they are not for tuning).
import path from 'node:path';
import {
  type BenchmarkHalf,
  type BenchmarkPage,
  benchmarkScore,
  loadBenchmarkPages,
  ourArticleText,
  pageF1,
  pageF1Spread,
  pagePrecision,
  pageRecall,
  readabilityJsText,
  type ShingleCounts,
  shingleCounts,
} from '../test/support/shingles.js';

const CORPUS = path.resolve(import.meta.dirname, '../../shared/fixtures/web/article-extraction-benchmark');

interface Row {
  page: BenchmarkPage;
  ours: ShingleCounts;
  readability: ShingleCounts;
}

function score(pages: BenchmarkPage[]): Row[] {
  return pages.map((page) => ({
    page,
    ours: shingleCounts(page.articleBody, ourArticleText(page.html, page.url)),
    readability: shingleCounts(page.articleBody, readabilityJsText(page.html, page.url)),
  }));
}

function printHalf(half: BenchmarkHalf | 'both', rows: Row[]): void {
  const ours = benchmarkScore(rows.map((r) => r.ours));
  const theirs = benchmarkScore(rows.map((r) => r.readability));
  const oursSpread = pageF1Spread(rows.map((r) => r.ours));
  const theirSpread = pageF1Spread(rows.map((r) => r.readability));
  const line = (label: string, s: typeof ours, spread: typeof oursSpread) =>
    `  ${label.padEnd(16)} F1 ${s.f1.toFixed(4)}  P ${s.precision.toFixed(4)}  R ${s.recall.toFixed(4)}` +
    `  page F1 mean ${spread.mean.toFixed(4)}  median ${spread.median.toFixed(4)}`;
  console.log(`${half === 'both' ? 'both halves' : `${half} half`}, ${rows.length} pages:`);
  console.log(line('ours: parsePage', ours, oursSpread));
  console.log(line('Readability.js', theirs, theirSpread));
  console.log(
    `  ours/Readability.js: F1 ${(ours.f1 / theirs.f1).toFixed(3)}× (${(ours.f1 - theirs.f1 >= 0 ? '+' : '') + (ours.f1 - theirs.f1).toFixed(4)})`,
  );
}

/** The tuning pages where we and Readability.js differ most, and our worst: where to look next. */
function printTuningPages(rows: Row[]): void {
  const pr = (c: ShingleCounts) => `P ${pagePrecision(c).toFixed(2)} R ${pageRecall(c).toFixed(2)}`;
  const gaps = rows
    .map((r) => ({ ...r, gap: pageF1(r.ours) - pageF1(r.readability) }))
    .filter((r) => Math.abs(r.gap) > 0.01)
    .sort((a, b) => a.gap - b.gap);
  console.log('tuning pages where we and Readability.js differ (F1 gap):');
  for (const r of gaps) {
    console.log(
      `  ${r.page.id} ${r.gap.toFixed(3)}  ours ${pr(r.ours)}  Readability.js ${pr(r.readability)}`,
    );
  }
  console.log('our worst tuning pages:');
  for (const r of [...rows].sort((a, b) => pageF1(a.ours) - pageF1(b.ours)).slice(0, 12)) {
    console.log(`  ${r.page.id} F1 ${pageF1(r.ours).toFixed(3)}  ${pr(r.ours)}`);
  }
}

export async function benchExtraction(): Promise<void> {
  const pages = loadBenchmarkPages(CORPUS);
  console.log(
    `\n## extraction — token F1 (4-token shingles) on ${pages.length} article-extraction-benchmark pages, ` +
      'ours vs Readability.js in the same run',
  );
  const t0 = performance.now();
  const rows = score(pages);
  for (const half of ['tuning', 'held-out'] as const) {
    printHalf(
      half,
      rows.filter((r) => r.page.half === half),
    );
  }
  printHalf('both', rows);
  if (process.env.BENCH_PAGES === '1') printTuningPages(rows.filter((r) => r.page.half === 'tuning'));
  console.log(`(${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
