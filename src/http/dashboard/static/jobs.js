// Jobs: the account's jobs by status, paged, and one job's summary and result (GET /v1/jobs/{id}).
import { call } from './api.js';
import { $, el, fill, fmtDuration, fmtInt, fmtTime, showError, table } from './dom.js';

const LIMIT = 20;
// Each kind's own poll route (DESIGN §4), which carries what the summary leaves out (crawl pages,
// batch items, transcripts).
const POLL_ROUTES = {
  transcript: '/v1/transcript/',
  ocr: '/v1/video/ocr/',
  describe: '/v1/video/describe/',
  extract: '/v1/extract/',
  crawl: '/v1/web/crawl/',
  transcript_batch: '/v1/vidsite/batch/',
  video_batch: '/v1/vidsite/batch/',
};
let offset = 0;
let total = 0;

async function load() {
  const status = $('jobs-status').value;
  const res = await call('GET', '/v1/jobs', { query: { status, limit: LIMIT, offset } });
  total = res.total;
  if (!res.jobs.length) {
    fill($('jobs-table'), el('p', { class: 'hint' }, status ? `No ${status} jobs.` : 'No jobs yet.'));
  } else {
    fill(
      $('jobs-table'),
      table(
        'Jobs of this account',
        ['Job', 'Queue', 'Status', 'Created', 'Duration', { label: 'Credits', num: true }, 'Error'],
        res.jobs.map((j) => [
          el('button', { type: 'button', class: 'secondary small', onclick: () => void openJob(j.id) }, j.id),
          j.queue,
          el('span', { class: `badge ${j.status}` }, j.status),
          fmtTime(j.createdAt),
          fmtDuration(j.durationMs),
          fmtInt(j.credits),
          j.error ?? '',
        ]),
      ),
    );
  }
  const pages = Math.max(1, Math.ceil(total / LIMIT));
  $('jobs-page').textContent = `Page ${Math.floor(offset / LIMIT) + 1} of ${pages} (${fmtInt(total)} jobs)`;
  $('jobs-prev').disabled = offset === 0;
  $('jobs-next').disabled = offset + LIMIT >= total;
}

async function openJob(id) {
  try {
    const job = await call('GET', `/v1/jobs/${encodeURIComponent(id)}`);
    const { result, ...summary } = job;
    $('job-detail-title').textContent = `Job ${job.id}`;
    fill(
      $('job-fields'),
      Object.entries(summary).flatMap(([k, v]) => [
        el('dt', {}, k),
        el('dd', {}, /At$/.test(k) ? fmtTime(v) : v === null ? '—' : String(v)),
      ]),
    );
    $('job-result').textContent =
      result === null || result === undefined ? '(no result yet)' : JSON.stringify(result, null, 2);
    const poll = POLL_ROUTES[job.queue];
    $('job-poll').hidden = !poll;
    if (poll) {
      const pollPath = `${poll}${encodeURIComponent(job.id)}`;
      $('job-poll-title').textContent = `Poll answer: GET ${pollPath}`;
      $('job-poll-body').textContent = 'Loading…';
      call('GET', pollPath).then(
        (answer) => {
          $('job-poll-body').textContent = JSON.stringify(answer, null, 2);
        },
        (err) => {
          $('job-poll-body').textContent = err.message;
        },
      );
    }
    $('job-detail').hidden = false;
    $('job-detail-title').focus();
  } catch (err) {
    showError('jobs-error', err);
  }
}

async function reload() {
  showError('jobs-error', null);
  try {
    await load();
  } catch (err) {
    showError('jobs-error', err);
  }
}

export const jobsView = {
  init() {
    $('jobs-filter').addEventListener('submit', (e) => {
      e.preventDefault();
      offset = 0;
      void reload();
    });
    $('jobs-status').addEventListener('change', () => {
      offset = 0;
      void reload();
    });
    $('jobs-prev').addEventListener('click', () => {
      offset = Math.max(0, offset - LIMIT);
      void reload();
    });
    $('jobs-next').addEventListener('click', () => {
      offset += LIMIT;
      void reload();
    });
  },
  show: reload,
};
