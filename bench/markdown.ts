// HTML → Markdown throughput over real pages: the Zyte article-extraction set (121 pages, gunzipped
// once up front) and Mozilla's Readability test pages, all held in memory before any timing.
//  - ours: parsePage(html, url) — linkedom parse, Readability, our turndown rules, metadata, links;
//  - baseline: plain `new TurndownService().turndown(html)` on the whole page (turndown's own parser,
//    no extraction; one instance, as a caller would keep).
// A warm-up pass each (over a quarter of the pages), then BENCH_PASSES (default 3) timed passes,
// ours and the baseline interleaved pass by pass (this machine's CPU is shared: each side keeps its
// fastest pass for pages/s and MB/s). Per-page times are the medians over the passes; mean and p95
// are over pages. Then one more pass over every other page times parsePage and splits that time into
// linkedom parse / the page scan (metadata, links, non-content removal) / Readability / Markdown (of
// Readability's content) / the rest (the whole-page fallback, link rewriting), by calling the same
// functions in the same order here — src/ is not instrumented.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { htmlToMarkdown } from '../src/sources/web/markdown.js';
import { parsePage } from '../src/sources/web/page.js';
import { scanPage } from '../src/sources/web/page-scan.js';
import { intEnv } from './lib/http.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../shared/fixtures/web');

interface Page {
  name: string;
  url: string;
  html: string;
  bytes: number;
}

function loadPages(): Page[] {
  const pages: Page[] = [];
  const zyte = path.join(FIXTURES, 'article-extraction-benchmark');
  for (const dir of fs.readdirSync(zyte).sort()) {
    const file = path.join(zyte, dir, 'source.html.gz');
    if (!fs.existsSync(file)) continue;
    const html = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
    pages.push({
      name: `zyte/${dir}`,
      url: `https://example.com/${dir}`,
      html,
      bytes: Buffer.byteLength(html),
    });
  }
  const moz = path.join(FIXTURES, 'readability');
  for (const dir of fs.readdirSync(moz).sort()) {
    const file = path.join(moz, dir, 'source.html');
    if (!fs.existsSync(file)) continue;
    const html = fs.readFileSync(file, 'utf8');
    // The Readability suite's pages all claim this address.
    pages.push({
      name: `readability/${dir}`,
      url: 'http://fakehost/test/page.html',
      html,
      bytes: Buffer.byteLength(html),
    });
  }
  return pages;
}

/** Times `fn` on every page; answers ms per page, in page order. */
function pass(pages: Page[], fn: (p: Page) => unknown): number[] {
  const times = new Array<number>(pages.length);
  for (let i = 0; i < pages.length; i++) {
    const t0 = performance.now();
    fn(pages[i]!);
    times[i] = performance.now() - t0;
  }
  return times;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

interface Side {
  label: string;
  run(p: Page): unknown;
  /** Per timed pass: ms per page. */
  passes: number[][];
}

function summarize(side: Side, pages: Page[], totalBytes: number) {
  const best = Math.min(...side.passes.map(sum)); // ms for the whole set, fastest pass
  const perPage = pages.map((_, i) => median(side.passes.map((p) => p[i]!)));
  return {
    pagesPerS: pages.length / (best / 1000),
    mbPerS: totalBytes / 1e6 / (best / 1000),
    meanMs: sum(perPage) / pages.length,
    p95Ms: p95(perPage),
  };
}

/** Our time, split the way parsePage spends it (same libraries, same order, outside src/). */
function split(pages: Page[]) {
  let parse = 0;
  let scan = 0;
  let readability = 0;
  let markdown = 0;
  let total = 0;
  for (const page of pages) {
    const t0 = performance.now();
    parsePage(page.html, page.url);
    total += performance.now() - t0;
    const t1 = performance.now();
    const { document } = parseHTML(page.html);
    const t2 = performance.now();
    scanPage(document, page.url);
    const t3 = performance.now();
    const article = new Readability(document as never, {
      serializer: (el: unknown) => el,
      freshDocument: () => {
        const fresh = parseHTML(page.html).document;
        scanPage(fresh, page.url);
        return fresh as never;
      },
    }).parse() as { content: unknown } | null;
    const t4 = performance.now();
    htmlToMarkdown(article?.content ?? document.body, { noLinks: false });
    const t5 = performance.now();
    parse += t2 - t1;
    scan += t3 - t2;
    readability += t4 - t3;
    markdown += t5 - t4;
  }
  const rest = Math.max(0, total - parse - scan - readability - markdown);
  return { parse, scan, readability, markdown, rest, total };
}

export async function benchMarkdown(): Promise<void> {
  const passes = intEnv('BENCH_PASSES', 3);
  const pages = loadPages();
  const totalBytes = sum(pages.map((p) => p.bytes));
  console.log(
    `\n## markdown — ${pages.length} real pages, ${(totalBytes / 1e6).toFixed(1)} MB of HTML, ` +
      `warm-up over a quarter of them, then ${passes} timed passes each, interleaved`,
  );
  const turndown = new TurndownService();
  const ours: Side = { label: 'ours: parsePage', run: (p) => parsePage(p.html, p.url), passes: [] };
  const base: Side = {
    label: 'turndown(html) (baseline)',
    run: (p) => turndown.turndown(p.html),
    passes: [],
  };
  // Warm-up on a quarter of the pages: enough for the JIT, and it keeps the run short.
  const sample = pages.filter((_, i) => i % 4 === 0);
  for (const side of [ours, base]) pass(sample, side.run);
  for (let i = 0; i < passes; i++) {
    for (const side of [ours, base]) side.passes.push(pass(pages, side.run));
  }
  const o = summarize(ours, pages, totalBytes);
  const b = summarize(base, pages, totalBytes);
  for (const [side, r] of [
    [base, b],
    [ours, o],
  ] as const) {
    console.log(
      `${side.label.padEnd(27)} ${r.pagesPerS.toFixed(1).padStart(6)} pages/s  ${r.mbPerS.toFixed(2).padStart(5)} MB/s` +
        `  ${r.meanMs.toFixed(1).padStart(5)} ms/page mean  ${r.p95Ms.toFixed(1).padStart(5)} ms p95`,
    );
  }
  console.log(
    `ours/turndown: throughput ${(o.pagesPerS / b.pagesPerS).toFixed(2)}×, mean time ${(o.meanMs / b.meanMs).toFixed(2)}×, p95 ${(o.p95Ms / b.p95Ms).toFixed(2)}×`,
  );
  const half = pages.filter((_, i) => i % 2 === 0);
  const s = split(half);
  const pct = (x: number) => `${(x / half.length).toFixed(1)} ms (${((x / s.total) * 100).toFixed(0)} %)`;
  console.log(
    `our time split, every other page (${(s.total / half.length).toFixed(1)} ms/page in that pass): linkedom parse ${pct(s.parse)}, ` +
      `page scan (metadata, links, non-content) ${pct(s.scan)}, Readability ${pct(s.readability)}, ` +
      `Markdown ${pct(s.markdown)}, the rest (fallback, link rewriting) ${pct(s.rest)}`,
  );
}
