// `npm run bench [-- <name> …]`: runs the named benchmarks, or all of them, one after another. Each
// prints its numbers beside a baseline measured in the same run. A benchmark is a bench/<name>.ts
// exporting one async function, registered below.
import os from 'node:os';

const benchmarks: Record<string, { what: string; run(): Promise<void> }> = {
  account: {
    what: 'authenticated GET /v1/account req/s and latency vs bare Fastify',
    run: async () => (await import('./account.js')).benchAccount(),
  },
  blocks: {
    what: 'a platform that blocks by source address, behind N loopback proxies (some burned): answered right, empty answers, billed failures, p50/p95, upstream calls per request vs the same requests without blocks, burned share',
    run: async () => (await import('./blocks.js')).benchBlocks(),
  },
  jobs: {
    what: 'job throughput per queue adapter vs raw BullMQ, and idle POST→completed latency',
    run: async () => (await import('./jobs.js')).benchJobs(),
  },
  ledger: {
    what: "a paid request's ledger write (50 concurrent callers): µs of CPU per charge on a ledger of 0, 100k and 300k entries, ratio 300k÷0",
    run: async () => (await import('./ledger.js')).benchLedger(),
  },
  markdown: {
    what: 'HTML → Markdown pages/s over real pages: parsePage vs plain turndown',
    run: async () => (await import('./markdown.js')).benchMarkdown(),
  },
  extraction: {
    what: 'main-content token F1 on the article-extraction benchmark, tuning and held-out halves: parsePage vs Readability.js',
    run: async () => (await import('./extraction.js')).benchExtraction(),
  },
  cached: {
    what: 'cached transcript, scrape and video metadata req/s, p50/p99 on the full API vs bare Fastify answering the same body',
    run: async () => (await import('./cached.js')).benchCached(),
  },
  monitors: {
    what: '1,000 page monitors of 1,000 accounts due at the same instant, one embedded process: checks/s and the lag of the last check vs GET /v1/web/scrape of the same pages',
    run: async () => (await import('./monitors.js')).benchMonitors(),
  },
  'render-fairness': {
    what: "one account floods the browser pool with 100 renders of 5 actions: the other account's render time, alone vs during",
    run: async () => (await import('./render-fairness.js')).benchRenderFairness(),
  },
  'batch-scrape': {
    what: 'batch_scrape job pages/s over 1,000 loopback pages (markdown) vs a bare fetch + parse loop; then with screenshots',
    run: async () => (await import('./batch-scrape.js')).benchBatchScrape(),
  },
  crawl: {
    what: 'crawl pages/s of a loopback site: our engine (and job) vs Crawlee CheerioCrawler vs a bare loop',
    run: async () => (await import('./crawl.js')).benchCrawl(),
  },
  scrape: {
    what: 'GET /v1/web/scrape latency p50/p95 (uncached, cached) vs a raw fetch of the page',
    run: async () => (await import('./scrape.js')).benchScrape(),
  },
  ocr: {
    what: 'OCR of a generated 5-minute video: CPU and wall s per minute of video and caption CER, ours vs OCR of every sampled frame',
    run: async () => (await import('./ocr.js')).benchOcr(),
  },
  overload: {
    what: 'twice the measured capacity of a cached paid request, open-loop: admitted vs shed (503), latencies, /health, credits',
    run: async () => (await import('./overload.js')).benchOverload(),
  },
  history: {
    what: 'usage/jobs pages and the usage summary at 10k, 100k and 1M rows per account (SQLite, PostgreSQL): ms and ratio 1M÷10k',
    run: async () => (await import('./history.js')).benchHistory(),
  },
  speech: {
    what: 'speech recognition CPU/wall s per minute of a generated 5-minute recording: our whisper.cpp engine vs the library in-process (and the whisper.cpp CLI when given)',
    run: async () => (await import('./speech.js')).benchSpeech(),
  },
  soak: {
    what: 'ten minutes of mixed load (scrape cached/uncached, transcript warm/cold, crawl jobs): app memory and handles at start, middle, end',
    run: async () => (await import('./soak.js')).benchSoak(),
  },
  transcript: {
    what: 'GET /v1/transcript req/s, p50/p99 (cold: player + timedtext upstream; warm: cached) vs the raw replay server',
    run: async () => (await import('./transcript.js')).benchTranscript(),
  },
};

const names = process.argv.slice(2);
const unknown = names.filter((n) => !(n in benchmarks));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; available:`);
  for (const [name, b] of Object.entries(benchmarks)) console.error(`  ${name.padEnd(10)} ${b.what}`);
  process.exit(2);
}
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'CPU'}`,
);
for (const name of names.length > 0 ? names : Object.keys(benchmarks)) {
  await benchmarks[name]!.run();
}
