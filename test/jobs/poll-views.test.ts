// Each job kind declares how its jobs look to their owner (`JobKind.poll`), and the engine knows no
// kind by name. A poll's schema is its route's 200, which Fastify serializes the answer with: a field
// the schema left out would be dropped from the wire, so every view, in every state, must come out of
// its schema's serializer unchanged.
import fs from 'node:fs';
import path from 'node:path';
import fastJson from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import type { JobKind, JobPoll, JobRow, ViewOptions } from '../../src/jobs/types.js';
import { dataPoll, pollAnswer, resultOf } from '../../src/jobs/views.js';
import { DESCRIBE_KIND, describePoll } from '../../src/media/describe-job.js';
import { EXTRACT_KIND, extractPoll } from '../../src/media/extract-job.js';
import { OCR_KIND, ocrPoll } from '../../src/media/ocr-job.js';
import { TRANSCRIPT_KIND, transcriptPoll } from '../../src/media/transcript-job.js';
import { CRAWL_KIND } from '../../src/sources/web/crawl-job.js';
import { crawlPoll } from '../../src/sources/web/crawl-poll.js';
import { TRANSCRIPT_BATCH_KIND, VIDEO_BATCH_KIND } from '../../src/sources/youtube/batch-job.js';
import { batchPoll } from '../../src/sources/youtube/batch-poll.js';
import { repoRoot } from '../support/processes.js';

const POLLS: Record<string, JobPoll> = {
  [TRANSCRIPT_KIND]: transcriptPoll,
  [OCR_KIND]: ocrPoll,
  [DESCRIBE_KIND]: describePoll,
  [EXTRACT_KIND]: extractPoll,
  [CRAWL_KIND]: crawlPoll,
  [TRANSCRIPT_BATCH_KIND]: batchPoll,
  [VIDEO_BATCH_KIND]: batchPoll,
  plain: dataPoll,
};

/** Results each kind stores, as its handler returns them. */
const RESULTS: Record<string, unknown> = {
  [TRANSCRIPT_KIND]: { content: [{ text: 'hi', offset: 0, duration: 1000, lang: 'en' }], lang: 'en' },
  [OCR_KIND]: {
    text: [{ text: 'SALE', startMs: 0, endMs: 1500 }],
    format: 'srt',
    content: '1\n00:00:00,000 --> 00:00:01,500\nSALE\n',
    stats: { videoMs: 1500, sampledFrames: 3, ocrFrames: 1 },
  },
  [DESCRIBE_KIND]: {
    description: 'a cat',
    frames: [{ timeMs: 0, width: 512, height: 288 }],
    transcript: null,
  },
  [EXTRACT_KIND]: { data: { title: 'x', tags: ['a'] }, schema: { type: 'object' } },
  [CRAWL_KIND]: {
    pagesScraped: 2,
    pagesFailed: 1,
    failures: [{ url: 'https://example.com/x', error: 'not_found', message: '404', status: 404 }],
    skippedByRobots: 0,
    stoppedBy: 'stopped',
  },
  [TRANSCRIPT_BATCH_KIND]: { stats: { total: 2, succeeded: 1, failed: 1 } },
  [VIDEO_BATCH_KIND]: { stats: { total: 1, succeeded: 1, failed: 0 } },
  plain: { anything: [1, 'two', { three: null }] },
};

function row(kind: string, status: JobRow['status'], result: unknown): JobRow {
  const ended = status !== 'queued' && status !== 'active';
  return {
    id: 'job_1',
    account_id: 'acc_1',
    kind,
    status,
    input: JSON.stringify({ url: 'https://example.com/v', format: 'vtt' }),
    result: status === 'completed' || status === 'cancelled' ? JSON.stringify(result) : null,
    error: status === 'failed' ? 'it broke' : null,
    error_code: status === 'failed' ? 'upstream_error' : null,
    attempts: status === 'queued' ? 0 : 1,
    max_attempts: 3,
    held: 5,
    cost: ended ? 3 : null,
    webhook_url: null,
    dedupe_key: null,
    run_at: 1,
    locked_by: null,
    locked_until: null,
    created_at: 1_700_000_000_000,
    started_at: status === 'queued' ? null : 1_700_000_000_100,
    completed_at: ended ? 1_700_000_001_000 : null,
    duration_ms: ended ? 900 : null,
    result_expires_at: null,
    cancel_requested_at: null,
  };
}

const STATES: JobRow['status'][] = ['queued', 'active', 'completed', 'failed', 'cancelled'];
const page: ViewOptions = {
  skip: 0,
  page: {
    items: [{ url: 'https://example.com/', content: '# Hi', extra: { deep: true } }],
    total: 3,
    nextSkip: 1,
  },
  nextUrl: (n) => `http://127.0.0.1:8080/poll?skip=${n}`,
};

describe('poll views', () => {
  for (const [kind, poll] of Object.entries(POLLS)) {
    it(`${kind}: its schema serializes its view unchanged, in every state, with and without a page`, () => {
      const stringify = fastJson(poll.schema as never);
      for (const status of STATES) {
        for (const opts of [{}, page]) {
          const answer = poll.view(row(kind, status, RESULTS[kind]), opts);
          expect(JSON.parse(stringify(answer)), `${kind} ${status}`).toEqual(
            JSON.parse(JSON.stringify(answer)),
          );
        }
      }
    });
  }

  it('resolve through the kinds: the declared poll, else {status, data, error}', () => {
    const kinds = new Map<string, JobKind>([
      [CRAWL_KIND, { poll: crawlPoll } as JobKind],
      [OCR_KIND, { poll: ocrPoll } as JobKind],
    ]);
    const queuedOcr = row(OCR_KIND, 'queued', null);
    expect(pollAnswer(kinds, queuedOcr).status).toBe('pending');
    const other = row('plain', 'completed', { a: 1 });
    expect(pollAnswer(kinds, other)).toEqual({ status: 'completed', data: { a: 1 }, error: null });
    // The crawl's own reading of its result: a cancel is `cancel` to its owner, in both answers.
    const cancelled = row(CRAWL_KIND, 'cancelled', RESULTS[CRAWL_KIND]);
    expect(pollAnswer(kinds, cancelled).stoppedReason).toBe('cancel');
    expect(resultOf(kinds, cancelled)).toMatchObject({ stoppedBy: 'cancel', pagesScraped: 2 });
    expect(resultOf(kinds, other)).toEqual({ a: 1 });
  });
});

describe('the engine', () => {
  it('names no job kind: src/jobs/ has none of their names in its code', () => {
    const dir = path.join(repoRoot, 'src/jobs');
    const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    const named: string[] = [];
    for (const file of files) {
      // Comments may name kinds as examples; code may not.
      const code = fs
        .readFileSync(path.join(dir, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
      for (const kind of Object.keys(POLLS).filter((k) => k !== 'plain')) {
        if (new RegExp(`['"\`]${kind}['"\`]`).test(code)) named.push(`${file}: ${kind}`);
      }
    }
    expect(named).toEqual([]);
  });
});
